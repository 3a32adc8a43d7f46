/**
 * The typed failure of one stream-json line: streams fail with it, or, with
 * `onBadLine: "emit"`, emit it in-band and go on.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

// What every reason carries: where the line is, a cut of it, what was wrong, and the underlying error.
const lineFields = {
  /** 1-based line number; blank lines count. */
  line: Schema.Number,
  /** The start of the line's text (lossy for invalid UTF-8). */
  raw: Schema.String,
  /** What was wrong, readable (the JSON syntax error, the schema issue with its path, the limit). */
  detail: Schema.String,
  /** The underlying error (a `SyntaxError`, the schema's `MessageDecodeError`, a `TypeError` from the UTF-8 decoder). */
  cause: Schema.optional(Schema.Defect())
}

const describe = (
  self: { readonly line: number; readonly raw: string; readonly detail: string },
  what: string
): string => `line ${self.line}: ${what}: ${self.detail}; raw: ${JSON.stringify(self.raw)}`

/**
 * The line's bytes are not valid UTF-8.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidUtf8 extends Schema.TaggedError<InvalidUtf8>()("InvalidUtf8", lineFields) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return describe(this, "invalid UTF-8")
  }
}

/**
 * The line has more bytes than the configured limit (`maxLineBytes`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class LineTooLong extends Schema.TaggedError<LineTooLong>()("LineTooLong", {
  ...lineFields,
  /** The limit in bytes. */
  maxLineBytes: Schema.Number
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return describe(this, "line too long")
  }
}

/**
 * The line is not JSON (a warning printed by the CLI or a wrapper, a cut line).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", lineFields) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return describe(this, "invalid JSON")
  }
}

/**
 * The line is JSON but not a message: not an object, no `type`, or a known message type whose fields do not
 * fit its schema (`detail` names the path).
 *
 * @since 0.1.0
 * @category reasons
 */
export class SchemaMismatch extends Schema.TaggedError<SchemaMismatch>()("SchemaMismatch", lineFields) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return describe(this, "schema mismatch")
  }
}

/**
 * Every reason a `DecodeError` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([InvalidUtf8, LineTooLong, InvalidJson, SchemaMismatch])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * One line that could not be decoded. Its `reason` carries the 1-based line number (blank lines count), a cut
 * of the raw text (at most {@link rawCutLength} characters plus a note of how much was left out) and what was
 * wrong; `line`, `raw` and `detail` read them from it. Recover by reason with
 * `Effect.catchReason("DecodeError", "LineTooLong", ...)`.
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
export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", { reason: Reason }) {
  /**
   * 1-based line number; blank lines count.
   *
   * @since 0.1.0
   */
  get line(): number {
    return this.reason.line
  }
  /**
   * The start of the line's text.
   *
   * @since 0.1.0
   */
  get raw(): string {
    return this.reason.raw
  }
  /**
   * What was wrong, readable.
   *
   * @since 0.1.0
   */
  get detail(): string {
    return this.reason.detail
  }
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

/**
 * Wraps a reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason): DecodeError => new DecodeError({ reason })


/**
 * @since 0.1.0
 * @category guards
 */
export const isDecodeError = (u: unknown): u is DecodeError => Predicate.isTagged(u, "DecodeError")
