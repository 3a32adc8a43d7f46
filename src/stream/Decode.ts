/**
 * stream-json decoding: bytes (or numbered lines) to typed `Message`s.
 *
 * By default the first {@link DecodeError} fails the stream (after every
 * message before it); with `onBadLine: "emit"` it is emitted in-band and
 * decoding goes on. The `records` variants keep each line's raw text beside
 * its message, for lossless recordings.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { dual } from "effect/Function"
import type * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"
import { decodeMessage, type Message } from "../schema/Message.ts"
import { DecodeError, isDecodeError } from "./DecodeError.ts"
import { decodeLineWith } from "./internal/decodeLine.ts"
import * as FileBytes from "./internal/fileBytes.ts"
import { applyStepper, noFlush, type Stepper } from "./internal/stepper.ts"
import * as Ndjson from "./Ndjson.ts"

export type {
  /**
   * @since 0.1.0
   * @category errors
   */
  DecodeError
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

/**
 * Decodes one line's text to its message: {@link decodeLine} without the {@link DecodedLine} around it, for
 * a caller that does not keep the text. Synchronous, never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLineMessage: (line: Ndjson.Line) => Message | DecodeError = decodeLineWith(decodeMessage)

type Output = "record" | "message"

// Framing, `JSON.parse` and the schema's synchronous decoding run fused in one stage, per chunk, with no
// Effect allocated per line: this is the hot path.
// Appends the decoded lines of `lines` to `out`; unless `emit`, returns the first error.
const decodeInto = (
  lines: ReadonlyArray<Ndjson.Line | DecodeError>,
  out: Array<unknown>,
  output: Output,
  emit: boolean
): DecodeError | undefined => {
  for (let i = 0; i < lines.length; i++) {
    const item = lines[i]
    // `instanceof`: the errors here are all made by this package, and it is cheaper than a tag check per line.
    const decoded = item instanceof DecodeError ? item : decodeLineMessage(item)
    if (decoded instanceof DecodeError) {
      if (!emit) return decoded
      out.push(decoded)
    } else {
      out.push(output === "record" ? toRecord(item as Ndjson.Line, decoded) : decoded)
    }
  }
  return undefined
}

const bytesStepper = (options: Ndjson.Options | undefined, output: Output): Stepper<Uint8Array, unknown, DecodeError> => {
  const splitter = Ndjson.makeSplitter(options)
  const emit = options?.onBadLine === "emit"
  let scratch: Array<Ndjson.Line | DecodeError> = []
  // Lines framed before a framing error are decoded first, so an earlier bad line wins.
  const run = (framingError: DecodeError | undefined, out: Array<unknown>) => {
    const lines = scratch
    scratch = []
    return decodeInto(lines, out, output, emit) ?? framingError
  }
  return {
    step: (chunks, out) => run(Ndjson.pushAll(splitter, chunks, scratch), out),
    flush: (out) => run(splitter.end(scratch), out)
  }
}

const bytes = (output: Output) =>
  dual(
    (args) => Stream.isStream(args[0]),
    <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Ndjson.Options) =>
      applyStepper(self, () => bytesStepper(options, output))
  )

/**
 * Bytes to messages. The first bad line fails the stream with its
 * {@link DecodeError}; with `onBadLine: "emit"` it is a value in the stream
 * and decoding goes on.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode } from "effect-claude-code/stream"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const messages = stdout.pipe(Decode.messages())
 * const withBadLines = stdout.pipe(Decode.messages({ onBadLine: "emit" }))
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const messages: Ndjson.FromBytes<Message> = bytes("message")

/**
 * The messages of a stream-json file (a saved capture, a recording), read in 256 KiB reads: Effect's
 * `FileSystem.stream` reads 64 KiB at a time, which costs a large file about a fifth more CPU time (the README's
 * Performance section). Bad lines as in {@link messages}; a file that cannot be read fails with its
 * `PlatformError`.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Message } from "effect-claude-code/schema"
 * import { Decode } from "effect-claude-code/stream"
 * const results = Decode.file("run.jsonl").pipe(Stream.filter(Message.isResultMessage))
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const file: {
  (path: string, options: Ndjson.EmitOptions): Stream.Stream<Message | DecodeError, PlatformError.PlatformError, FileSystem.FileSystem>
  (path: string, options?: Ndjson.FailOptions): Stream.Stream<Message, PlatformError.PlatformError | DecodeError, FileSystem.FileSystem>
  (path: string, options?: Ndjson.Options): Stream.Stream<Message | DecodeError, PlatformError.PlatformError | DecodeError, FileSystem.FileSystem>
} = (path: string, options?: Ndjson.Options): Stream.Stream<any, any, FileSystem.FileSystem> =>
  Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => FileBytes.stream(fs, path))).pipe(messages(options))

/**
 * Bytes to {@link DecodedLine}s (message plus raw line); bad lines as in
 * {@link messages}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const records: Ndjson.FromBytes<DecodedLine> = bytes("record")

/**
 * Already framed lines (e.g. read back from a recording) to {@link DecodedLine}s;
 * bad lines as in {@link messages}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromLines: {
  (options: { readonly onBadLine: "emit" }): <E, R>(self: Stream.Stream<Ndjson.Line, E, R>) => Stream.Stream<DecodedLine | DecodeError, E, R>
  (options?: { readonly onBadLine?: "fail" | undefined }): <E, R>(self: Stream.Stream<Ndjson.Line, E, R>) => Stream.Stream<DecodedLine, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Ndjson.Line, E, R>, options: { readonly onBadLine: "emit" }): Stream.Stream<DecodedLine | DecodeError, E, R>
  <E, R>(self: Stream.Stream<Ndjson.Line, E, R>, options?: { readonly onBadLine?: "fail" | undefined }): Stream.Stream<DecodedLine, E | DecodeError, R>
} = dual(
  (args) => Stream.isStream(args[0]),
  <E, R>(self: Stream.Stream<Ndjson.Line, E, R>, options?: { readonly onBadLine?: Ndjson.OnBadLine | undefined }) => {
    const emit = options?.onBadLine === "emit"
    return applyStepper(self, (): Stepper<Ndjson.Line, unknown, DecodeError> => ({
      step: (chunk: Arr.NonEmptyReadonlyArray<Ndjson.Line>, out) => decodeInto(chunk, out, "record", emit),
      flush: noFlush
    }))
  }
)

/**
 * Decodes a whole buffer at once, without Effect: every line in order,
 * decoded or failed. Handy for tests and tools that hold a file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeAll = (input: Uint8Array | string, options?: Ndjson.Options): Array<DecodedLine | DecodeError> => {
  const stepper = bytesStepper({ ...options, onBadLine: "emit" }, "record")
  const out: Array<unknown> = []
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input
  if (bytes.length > 0) stepper.step([bytes], out)
  stepper.flush(out)
  return out as Array<DecodedLine | DecodeError>
}
