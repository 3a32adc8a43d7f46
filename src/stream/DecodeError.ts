/**
 * The typed failure of one stream-json line: a stream that fails on a bad line fails with it, one that
 * reports bad lines emits it in-band and goes on. Tell it from a decoded message by its `_tag` or
 * {@link isDecodeError}.
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
 * // in a stream that reports bad lines: Stream.filter(DecodeError.isDecodeError)
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
 * The error with some fields of its reason replaced: a redacted raw cut, or the cause dropped (`cause:
 * undefined`) when it quotes a secret.
 *
 * @since 0.1.0
 * @category constructors
 */
export const withFields = (
  error: DecodeError,
  fields: { readonly raw?: string; readonly detail?: string; readonly cause?: undefined }
): DecodeError => {
  // A spread copies the fields, not the cause (an Error's own, not enumerable).
  const next = <R extends Reason>(reason: R) => ({
    ...reason,
    ...(reason.cause === undefined ? {} : { cause: reason.cause }),
    ...fields
  })
  const reason = error.reason
  switch (reason._tag) {
    case "InvalidUtf8":
      return make(new InvalidUtf8(next(reason)))
    case "LineTooLong":
      return make(new LineTooLong(next(reason)))
    case "InvalidJson":
      return make(new InvalidJson(next(reason)))
    case "SchemaMismatch":
      return make(new SchemaMismatch(next(reason)))
  }
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isDecodeError = (u: unknown): u is DecodeError => Predicate.isTagged(u, "DecodeError")

/**
 * How many characters of a bad line an error keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const rawCutLength = 240

/**
 * Cuts a line's text for an error message: the first {@link rawCutLength}
 * characters and a note of how many were left out.
 *
 * @since 0.1.0
 * @category utils
 */
export const cutRaw = (text: string): string =>
  text.length <= rawCutLength ? text : `${text.slice(0, rawCutLength)}… (${text.length - rawCutLength} more chars)`

// The note a cut ends with: `cutRaw`'s, or the framing's bare ellipsis (a line too long or not UTF-8).
const cutNote = /…(?: \(\d+ more chars\))?$/

/**
 * Redacts a raw cut with `redact`, telling it where the text was cut (a secret may straddle the cut) and
 * keeping the note of what was left out.
 *
 * @since 0.1.0
 * @category utils
 */
export const redactRaw = (
  raw: string,
  redact: (text: string, edges?: { readonly end?: boolean | undefined }) => string
): string => {
  const note = cutNote.exec(raw)
  return note === null ? redact(raw) : redact(raw.slice(0, note.index), { end: true }) + note[0]
}

/**
 * A `DecodeError` whose raw cut and detail are redacted with `redact`: a bad line may be a CLI or wrapper
 * message that prints a credential. The raw cut was made before redaction, so its end is redacted as a cut
 * edge (see {@link redactRaw}). An error that shows no secret is returned as it is.
 *
 * @since 0.1.0
 * @category utils
 */
export const redactDecodeError = (
  error: DecodeError,
  redact: (text: string, edges?: { readonly end?: boolean | undefined }) => string
): DecodeError => {
  const raw = redactRaw(error.raw, redact)
  const detail = redact(error.detail)
  return raw === error.raw && detail === error.detail
    ? error
    // The cause (the schema issue holding the value) is dropped with the secret.
    : withFields(error, { raw, detail, cause: undefined })
}

/**
 * Redacts a text whose end is a cut edge (a line an exit or a kill cut), whether or not it ends with the note
 * of a cut (see {@link redactRaw}).
 *
 * @since 0.1.0
 * @category utils
 */
export const redactCutAtEnd = (
  text: string,
  redact: (text: string, edges?: { readonly end?: boolean | undefined }) => string
): string => redactRaw(text, (part) => redact(part, { end: true }))
