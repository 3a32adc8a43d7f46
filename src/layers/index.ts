/**
 * Layers providing the `ClaudeCli` service: the real CLI, recordings, fixtures (the scripted one is in `testing`).
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Fixture from "./Fixture.ts"

/**
 * @since 0.1.0
 */
export * as Live from "./Live.ts"

/**
 * @since 0.1.0
 */
export * as Recording from "./Recording.ts"
