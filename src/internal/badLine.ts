/**
 * A bad line as the `ClaudeCli` service reports it: its `DecodeError` redacted, and the matching
 * `ClaudeCliError` (`DecodeFailed`, or the stream's own `LineTooLong`). Queries and sessions share it.
 */
import * as CliError from "../ClaudeCliError.ts"
import * as Redaction from "./redaction.ts"
import * as Decode from "../stream/Decode.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import { redactDecodeError as redactWith, withFields } from "../stream/internal/cut.ts"
import type * as Ndjson from "../stream/Ndjson.ts"

/**
 * Redacts key-shaped values from a text (a run without an environment of its own).
 */
export const redactKeys: Redaction.Redact = Redaction.redactor([])

/**
 * A `DecodeError` whose raw cut and detail are redacted (see `DecodeError.redactDecodeError`): a bad line may
 * be a CLI or wrapper message that prints a credential. Without `redact`, key-shaped values are ({@link redactKeys}).
 */
export const redactDecodeError = (error: DecodeError, redact: Redaction.Redact = redactKeys): DecodeError =>
  redactWith(error, redact)

/**
 * The error of a bad line whose text is at hand: redacted before it is cut, so no cut can split a secret.
 */
export const redactLineError = (line: Ndjson.Line, error: DecodeError, redact: Redaction.Redact): DecodeError => {
  const text = redact(line.text)
  if (text === line.text) return error
  const again = Decode.decodeLineMessage({ line: line.line, text })
  // The line held a secret: its cause (quoting the line) goes with it.
  return isDecodeError(again) ? withFields(again, { cause: undefined }) : redactDecodeError(error, redact)
}

/**
 * Turns a stream-layer `DecodeError` into the matching `ClaudeCliError`, redacted (see {@link redactDecodeError}).
 */
export const fromDecodeError = (raw: DecodeError, redact?: Redaction.Redact): CliError.ClaudeCliError =>
  fromRedacted(redactDecodeError(raw, redact))

/**
 * The `ClaudeCliError` of an already redacted `DecodeError`.
 */
export const fromRedacted = (error: DecodeError): CliError.ClaudeCliError =>
  CliError.make(
    error.reason._tag === "LineTooLong"
      ? error.reason
      : new CliError.DecodeFailed({ line: error.line, raw: error.raw, issue: error.detail, cause: error })
  )
