/**
 * One line of JSON decoded with a given decoder, its failures as `DecodeError`s.
 */
import * as Result from "effect/Result"
import { type DecodeError, InvalidJson, make as decodeError, SchemaMismatch } from "../DecodeError.ts"
import type * as Ndjson from "../Ndjson.ts"
import { cutRaw } from "./cut.ts"

// V8 quotes up to 10 characters around the error (`..."x":wJalrXUtnF"...`): a quote cut at both ends may hold
// part of a secret that no redaction can recognise, and the raw cut shows the line anyway.
const quoted = /, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s

const syntaxError = (cause: unknown): SyntaxError =>
  new SyntaxError(cause instanceof Error ? cause.message.replace(quoted, " in JSON") : String(cause))

/**
 * Decodes one line's text with `decode` after `JSON.parse`: a line that is not JSON is an `InvalidJson`
 * error, one that `decode` rejects a `SchemaMismatch` error (its failure as the cause). Synchronous, never
 * throws; stream-json messages and session transcript entries both decode through it.
 */
export const decodeLineWith = <A, E extends { readonly message: string }>(
  decode: (json: unknown) => Result.Result<A, E>
) =>
(line: Ndjson.Line): A | DecodeError => {
  let json: unknown
  try {
    json = JSON.parse(line.text)
  } catch (thrown) {
    const cause = syntaxError(thrown)
    return decodeError(new InvalidJson({ line: line.line, raw: cutRaw(line.text), detail: cause.message, cause }))
  }
  const result = decode(json)
  if (Result.isSuccess(result)) return result.success
  return decodeError(
    new SchemaMismatch({ line: line.line, raw: cutRaw(line.text), detail: result.failure.message, cause: result.failure })
  )
}
