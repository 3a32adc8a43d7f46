/**
 * The typed failure of one stream-json line: streams fail with it, or, with
 * `onBadLine: "emit"`, emit it in-band and go on.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Predicate from "effect/Predicate"

/**
 * Why a line was rejected.
 *
 * - `InvalidUtf8`: the line's bytes are not valid UTF-8.
 * - `LineTooLong`: the line has more bytes than the configured limit.
 * - `InvalidJson`: the line is not JSON (a warning printed by the CLI or a wrapper, a cut line).
 * - `SchemaMismatch`: the JSON is a known message type whose fields do not fit its schema.
 *
 * @since 0.1.0
 * @category models
 */
export type DecodeErrorReason = "InvalidUtf8" | "LineTooLong" | "InvalidJson" | "SchemaMismatch"

/**
 * One line that could not be decoded. Carries the 1-based line number (blank
 * lines count), a cut of the raw text (at most {@link rawCutLength} characters
 * plus a note of how much was left out) and what was wrong.
 *
 * @example
 * ```ts
 * import { Decode, DecodeError } from "effect-claude-code/stream"
 * // with onBadLine "emit": Stream.filter(DecodeError.isDecodeError)
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Data.TaggedError("DecodeError")<{
  readonly reason: DecodeErrorReason
  /** 1-based line number; blank lines count. */
  readonly line: number
  /** The start of the line's text (lossy for invalid UTF-8). */
  readonly raw: string
  /** What was wrong, readable (the JSON syntax error, the schema issue with its path, the limit). */
  readonly detail: string
  /** For `LineTooLong`: the limit in bytes. */
  readonly maxLineBytes?: number | undefined
  /** The underlying error (a `SyntaxError`, the schema's `MessageDecodeError`, a `TypeError` from the UTF-8 decoder). */
  readonly cause?: unknown
}> {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `line ${this.line}: ${reasonText[this.reason]}: ${this.detail}; raw: ${JSON.stringify(this.raw)}`
  }
}

const reasonText: { readonly [R in DecodeErrorReason]: string } = {
  InvalidUtf8: "invalid UTF-8",
  LineTooLong: "line too long",
  InvalidJson: "invalid JSON",
  SchemaMismatch: "schema mismatch"
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isDecodeError = (u: unknown): u is DecodeError => Predicate.isTagged(u, "DecodeError")
