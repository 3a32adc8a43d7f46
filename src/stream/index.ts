/**
 * Streams over stream-json output: byte framing, decoding (failing at a bad
 * line or emitting it, `onBadLine`), the partial-message assembler and run
 * summaries.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Decode from "./Decode.ts"

/**
 * @since 0.1.0
 */
export * as DecodeError from "./DecodeError.ts"

/**
 * @since 0.1.0
 */
export * as Ndjson from "./Ndjson.ts"

/**
 * @since 0.1.0
 */
export * as Partial from "./Partial.ts"

/**
 * @since 0.1.0
 */
export * as Summary from "./Summary.ts"
