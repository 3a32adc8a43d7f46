/**
 * Session transcript decoding: bytes of a `<session id>.jsonl` file to typed
 * {@link Transcript.Entry} values.
 *
 * A bad line (not JSON, not UTF-8, a known entry type with broken fields)
 * fails the stream (`onBadLine: "fail"`, the default) after every entry
 * before it, or is emitted in-band as a {@link DecodeError}
 * (`onBadLine: "emit"`).
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Stream from "effect/Stream"
import * as Transcript from "./Transcript.ts"
import { decodeLineWith } from "../stream/internal/decodeLine.ts"
import { DecodeError } from "../stream/DecodeError.ts"
import { applyStepper, type Stepper } from "../stream/internal/stepper.ts"
import * as Ndjson from "../stream/Ndjson.ts"

/**
 * One decoded line: its 1-based number, its text as written and its entry.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedEntry {
  readonly line: number
  readonly raw: string
  readonly entry: Transcript.Entry
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Ndjson.Options {
  /** `"fail"` (default): the first bad line fails the stream; `"emit"`: bad lines are emitted as values. */
  readonly onBadLine?: Ndjson.OnBadLine | undefined
}

/**
 * Decodes one line's text: `JSON.parse`, then the entry schema. Synchronous, never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLine: (line: Ndjson.Line) => Transcript.Entry | DecodeError = decodeLineWith(Transcript.decodeEntry)

// The types of `Transcript.ConversationEntry`: a line of one of them that does not fit is a hole in the
// conversation. Every other known type is bookkeeping (titles, modes, costs, request records, ...).
const conversationTypes: ReadonlySet<string> = new Set(["user", "assistant", "system", "attachment", "progress"])

/**
 * The entry type of a bad line that is a bookkeeping entry (session metadata beside the conversation: a
 * `last-prompt`, a title, a request record, ...) of a known type whose fields do not fit its schema;
 * `undefined` for any other bad line. No conversation is read from such a line, so readers of whole
 * transcripts (`stats`, `view`, `SessionFiles`) count and report it and go on: a CLI that writes a
 * metadata field differently must not fail a user's directory. A conversation entry that does not fit
 * still fails where bad lines fail.
 *
 * @since 0.1.0
 * @category guards
 */
export const unfitBookkeeping = (error: DecodeError): string | undefined => {
  const reason = error.reason
  if (reason._tag !== "SchemaMismatch" || !(reason.cause instanceof Transcript.TranscriptEntryError)) return undefined
  const cause = reason.cause.reason
  return cause._tag === "InvalidFields" && !conversationTypes.has(cause.entryType) ? cause.entryType : undefined
}

type Output = "record" | "entry"

// Framing, `JSON.parse` and the schema's synchronous `decodeEntry` run fused per chunk, as in stream-json
// decoding, so a transcript of any size is read in memory bounded by its longest line.
const stepper = (options: Options | undefined, output: Output): Stepper<Uint8Array, unknown, DecodeError> => {
  const mode = options?.onBadLine ?? "fail"
  const splitter = Ndjson.makeSplitter({ maxLineBytes: options?.maxLineBytes, onBadLine: mode })
  let scratch: Array<Ndjson.Line | DecodeError> = []
  // Lines framed before a framing error are decoded first, so an earlier bad line wins.
  const run = (framingError: DecodeError | undefined, out: Array<unknown>): DecodeError | undefined => {
    const lines = scratch
    scratch = []
    for (let i = 0; i < lines.length; i++) {
      const item = lines[i]!
      const decoded = item instanceof DecodeError ? item : decodeLine(item)
      if (decoded instanceof DecodeError) {
        if (mode === "fail") return decoded
        out.push(decoded)
      } else {
        const line = item as Ndjson.Line
        out.push(output === "record" ? { line: line.line, raw: line.text, entry: decoded } : decoded)
      }
    }
    return framingError
  }
  return {
    step: (chunks, out) => run(Ndjson.pushAll(splitter, chunks, scratch), out),
    flush: (out) => run(splitter.end(scratch), out)
  }
}

const isOptions = (args: IArguments | ReadonlyArray<unknown>) => Stream.isStream(args[0])

/**
 * Bytes of a transcript to its entries.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { TranscriptDecode } from "effect-claude-code/transcript"
 * declare const file: Stream.Stream<Uint8Array>
 * const entries = file.pipe(TranscriptDecode.entries())
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const entries: {
  (options?: Options & { readonly onBadLine?: "fail" | undefined }): <E, R>(
    self: Stream.Stream<Uint8Array, E, R>
  ) => Stream.Stream<Transcript.Entry, E | DecodeError, R>
  (options: Options & { readonly onBadLine: "emit" }): <E, R>(
    self: Stream.Stream<Uint8Array, E, R>
  ) => Stream.Stream<Transcript.Entry | DecodeError, E, R>
  <E, R>(
    self: Stream.Stream<Uint8Array, E, R>,
    options?: Options & { readonly onBadLine?: "fail" | undefined }
  ): Stream.Stream<Transcript.Entry, E | DecodeError, R>
  <E, R>(
    self: Stream.Stream<Uint8Array, E, R>,
    options: Options & { readonly onBadLine: "emit" }
  ): Stream.Stream<Transcript.Entry | DecodeError, E, R>
} = dual(
  isOptions,
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options) => applyStepper(self, () => stepper(options, "entry"))
) as never

/**
 * Bytes of a transcript to {@link DecodedEntry}s (entry plus its line as written).
 *
 * @since 0.1.0
 * @category decoding
 */
export const records: {
  (options?: Options & { readonly onBadLine?: "fail" | undefined }): <E, R>(
    self: Stream.Stream<Uint8Array, E, R>
  ) => Stream.Stream<DecodedEntry, E | DecodeError, R>
  (options: Options & { readonly onBadLine: "emit" }): <E, R>(
    self: Stream.Stream<Uint8Array, E, R>
  ) => Stream.Stream<DecodedEntry | DecodeError, E, R>
  <E, R>(
    self: Stream.Stream<Uint8Array, E, R>,
    options?: Options & { readonly onBadLine?: "fail" | undefined }
  ): Stream.Stream<DecodedEntry, E | DecodeError, R>
  <E, R>(
    self: Stream.Stream<Uint8Array, E, R>,
    options: Options & { readonly onBadLine: "emit" }
  ): Stream.Stream<DecodedEntry | DecodeError, E, R>
} = dual(
  isOptions,
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options) => applyStepper(self, () => stepper(options, "record"))
) as never

/**
 * An incremental decoder without Effect, bad lines in-band: {@link Decoder.push} each chunk of a transcript as
 * it is read, then {@link Decoder.end}. The entries are those {@link records} gives for the same bytes, in
 * memory bounded by the longest line; a chunk is not kept after `push` returns (its buffer may be reused).
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoder {
  /** Appends the lines that `bytes` completes, decoded, to `out`. */
  readonly push: (bytes: Uint8Array, out: Array<DecodedEntry | DecodeError>) => void
  /** Appends the last line (one without a final newline), if any, to `out`. */
  readonly end: (out: Array<DecodedEntry | DecodeError>) => void
}

/**
 * A new {@link Decoder}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decoder = (options?: Ndjson.Options): Decoder => {
  const s = stepper({ ...options, onBadLine: "emit" }, "record")
  return {
    push: (bytes, out) => {
      if (bytes.length > 0) s.step([bytes], out)
    },
    end: (out) => {
      s.flush(out)
    }
  }
}

/**
 * Decodes a whole buffer at once, bad lines in-band, without Effect: every
 * line in order. Handy for tests and tools that hold a file.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeAll = (input: Uint8Array | string, options?: Ndjson.Options): Array<DecodedEntry | DecodeError> => {
  const d = decoder(options)
  const out: Array<DecodedEntry | DecodeError> = []
  d.push(typeof input === "string" ? new TextEncoder().encode(input) : input, out)
  d.end(out)
  return out
}
