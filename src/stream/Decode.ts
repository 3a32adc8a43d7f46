/**
 * stream-json decoding: bytes (or numbered lines) to typed `Message`s.
 *
 * Framing, `JSON.parse` and the schema's synchronous `decodeMessage` run fused
 * in one stage, per chunk, with no Effect allocated per line. Strict variants
 * fail the stream with the first {@link DecodeError} (after every message
 * before it); lenient variants emit it in-band and go on. The `records`
 * variants keep each line's raw text beside its message, for lossless
 * recordings.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { decodeMessage, type Message } from "../schema/Message.ts"
import { cutRaw, DecodeError, isDecodeError } from "./DecodeError.ts"
import { applyStepper, noFlush, type Stepper } from "./internal/stepper.ts"
import * as Ndjson from "./Ndjson.ts"

export {
  /**
   * @since 0.1.0
   * @category errors
   */
  DecodeError,
  /**
   * @since 0.1.0
   * @category guards
   */
  isDecodeError
}

/**
 * One decoded line: its 1-based number, its text as written (without the
 * line terminator, and without a leading BOM on line 1) and its message.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedLine {
  readonly line: number
  readonly raw: string
  readonly message: Message
}

/**
 * @since 0.1.0
 * @category models
 */
export type Options = Ndjson.Options

/**
 * A line decoded to `message`, as a {@link DecodedLine}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toRecord = (line: Ndjson.Line, message: Message): DecodedLine => ({ line: line.line, raw: line.text, message })

/**
 * Decodes one line's text: `JSON.parse`, then the schema. Synchronous, never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLine = (line: Ndjson.Line): DecodedLine | DecodeError => {
  const message = decodeLineMessage(line)
  return isDecodeError(message) ? message : toRecord(line, message)
}

// V8 quotes up to 10 characters around the error (`..."x":wJalrXUtnF"...`): a quote cut at both ends may hold
// part of a secret that no redaction can recognise, and the raw cut shows the line anyway.
const quoted = /, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s

const syntaxError = (cause: unknown): SyntaxError =>
  new SyntaxError(cause instanceof Error ? cause.message.replace(quoted, " in JSON") : String(cause))

/**
 * Decodes one line's text with `decode` after `JSON.parse`: a line that is not JSON is an `InvalidJson`
 * error, one that `decode` rejects a `SchemaMismatch` error (its failure as the cause). Synchronous, never
 * throws; for other line formats (session transcripts).
 *
 * @since 0.1.0
 * @category decoding
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
    return new DecodeError({ reason: "InvalidJson", line: line.line, raw: cutRaw(line.text), detail: cause.message, cause })
  }
  const result = decode(json)
  if (Result.isSuccess(result)) return result.success
  return new DecodeError({
    reason: "SchemaMismatch",
    line: line.line,
    raw: cutRaw(line.text),
    detail: result.failure.message,
    cause: result.failure
  })
}

/**
 * Decodes one line's text to its message: {@link decodeLine} without the {@link DecodedLine} around it, for
 * a caller that does not keep the text. Synchronous, never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLineMessage: (line: Ndjson.Line) => Message | DecodeError = decodeLineWith(decodeMessage)

/**
 * Whether a text is one whole JSON value (of any kind).
 *
 * @since 0.1.0
 * @category utils
 */
export const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

type Output = "record" | "message"
type Mode = "strict" | "lenient"

// Appends the decoded lines of `lines` to `out`; in strict mode returns the first error.
const decodeInto = (
  lines: ReadonlyArray<Ndjson.Line | DecodeError>,
  out: Array<unknown>,
  output: Output,
  mode: Mode
): DecodeError | undefined => {
  for (let i = 0; i < lines.length; i++) {
    const item = lines[i]
    // `instanceof`: the errors here are all made by this package, and it is cheaper than a tag check per line.
    const decoded = item instanceof DecodeError ? item : decodeLineMessage(item)
    if (decoded instanceof DecodeError) {
      if (mode === "strict") return decoded
      out.push(decoded)
    } else {
      out.push(output === "record" ? toRecord(item as Ndjson.Line, decoded) : decoded)
    }
  }
  return undefined
}

const bytesStepper = (options: Options | undefined, output: Output, mode: Mode): Stepper<Uint8Array, unknown, DecodeError> => {
  const splitter = Ndjson.makeSplitter({ ...options, mode: mode === "strict" ? "fail" : "emit" })
  let scratch: Array<Ndjson.Line | DecodeError> = []
  // Lines framed before a framing error are decoded first, so an earlier bad line wins.
  const run = (framingError: DecodeError | undefined, out: Array<unknown>) => {
    const lines = scratch
    scratch = []
    return decodeInto(lines, out, output, mode) ?? framingError
  }
  return {
    step: (chunks, out) => run(Ndjson.pushAll(splitter, chunks, scratch), out),
    flush: (out) => run(splitter.end(scratch), out)
  }
}

const linesStepper = (output: Output, mode: Mode): Stepper<Ndjson.Line, unknown, DecodeError> => ({
  step: (chunk: Arr.NonEmptyReadonlyArray<Ndjson.Line>, out) => decodeInto(chunk, out, output, mode),
  flush: noFlush
})

const bytes = (output: Output, mode: Mode) =>
  dual(
    (args) => Stream.isStream(args[0]),
    <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options) =>
      applyStepper(self, () => bytesStepper(options, output, mode))
  )

/**
 * Bytes to messages; fails with the first {@link DecodeError}.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode } from "effect-claude-code/stream"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const messages = stdout.pipe(Decode.messages())
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const messages: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Message, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Message, E | DecodeError, R>
} = bytes("message", "strict")

/**
 * Bytes to messages; a bad line becomes a {@link DecodeError} value in the
 * stream and decoding goes on.
 *
 * @since 0.1.0
 * @category decoding
 */
export const messagesLenient: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Message | DecodeError, E, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Message | DecodeError, E, R>
} = bytes("message", "lenient")

/**
 * Bytes to {@link DecodedLine}s (message plus raw line); fails with the first {@link DecodeError}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const records: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<DecodedLine, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<DecodedLine, E | DecodeError, R>
} = bytes("record", "strict")

/**
 * Bytes to {@link DecodedLine}s, bad lines as in-band {@link DecodeError}s.
 *
 * @since 0.1.0
 * @category decoding
 */
export const recordsLenient: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<DecodedLine | DecodeError, E, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<DecodedLine | DecodeError, E, R>
} = bytes("record", "lenient")

/**
 * Already framed lines (e.g. read back from a recording) to {@link DecodedLine}s;
 * fails with the first {@link DecodeError}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromLines = <E, R>(self: Stream.Stream<Ndjson.Line, E, R>): Stream.Stream<DecodedLine, E | DecodeError, R> =>
  applyStepper(self, () => linesStepper("record", "strict")) as Stream.Stream<DecodedLine, E | DecodeError, R>

/**
 * Already framed lines to {@link DecodedLine}s, bad lines as in-band {@link DecodeError}s.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromLinesLenient = <E, R>(
  self: Stream.Stream<Ndjson.Line, E, R>
): Stream.Stream<DecodedLine | DecodeError, E, R> =>
  applyStepper(self, () => linesStepper("record", "lenient")) as Stream.Stream<DecodedLine | DecodeError, E, R>

/**
 * Decodes a whole buffer at once, leniently, without Effect: every line in
 * order, decoded or failed. Handy for tests and tools that hold a file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeAll = (input: Uint8Array | string, options?: Options): Array<DecodedLine | DecodeError> => {
  const stepper = bytesStepper(options, "record", "lenient")
  const out: Array<unknown> = []
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input
  if (bytes.length > 0) stepper.step([bytes], out)
  stepper.flush(out)
  return out as Array<DecodedLine | DecodeError>
}
