/**
 * Cuts of bad lines for error messages, and their redaction.
 */
import { type DecodeError, InvalidJson, InvalidUtf8, LineTooLong, make, type Reason, SchemaMismatch } from "../DecodeError.ts"

/**
 * How many characters of a bad line an error keeps.
 */
export const rawCutLength = 240

/**
 * Cuts a line's text for an error message: the first {@link rawCutLength}
 * characters and a note of how many were left out.
 */
export const cutRaw = (text: string): string =>
  text.length <= rawCutLength ? text : `${text.slice(0, rawCutLength)}… (${text.length - rawCutLength} more chars)`

// The note a cut ends with: `cutRaw`'s, or the framing's bare ellipsis (a line too long or not UTF-8).
const cutNote = /…(?: \(\d+ more chars\))?$/

/**
 * Redacts a raw cut with `redact`, telling it where the text was cut (a secret may straddle the cut) and
 * keeping the note of what was left out.
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
 */
export const redactCutAtEnd = (
  text: string,
  redact: (text: string, edges?: { readonly end?: boolean | undefined }) => string
): string => redactRaw(text, (part) => redact(part, { end: true }))

/**
 * The error with some fields of its reason replaced: a redacted raw cut, or the cause dropped (`cause:
 * undefined`) when it quotes a secret.
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
