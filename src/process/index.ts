/**
 * Spawning the CLI's processes so that they, and everything they start, end with their run and with the host.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Process from "./Process.ts"
