/**
 * NDJSON framing over bytes: `Stream<Uint8Array>` to numbered text lines.
 *
 * Handles CRLF, blank lines (skipped, but counted in line numbers), a missing final newline and a leading
 * BOM. A line longer than `maxLineBytes` or not valid UTF-8 is a `DecodeError` naming its line, failing the
 * stream or emitted in-band per `onBadLine`.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import { dual } from "effect/Function"
import * as Stream from "effect/Stream"
import type * as NodeBuffer from "node:buffer"
import { type DecodeError, InvalidUtf8, LineTooLong, make as decodeError } from "./DecodeError.ts"
import { rawCutLength } from "./internal/cut.ts"
import { applyStepper, type Stepper } from "./internal/stepper.ts"

/**
 * One non-blank line: its 1-based number and its text without the terminator.
 *
 * @since 0.1.0
 * @category models
 */
export interface Line {
  readonly line: number
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Most bytes in one line, terminator excluded. Default {@link defaultMaxLineBytes} (64 MiB). */
  readonly maxLineBytes?: number | undefined
  /** What a bad line does (see {@link OnBadLine}); default `"fail"`. */
  readonly onBadLine?: OnBadLine | undefined
}

/**
 * What happens to a bad line: `"fail"` stops the stream with its `DecodeError`
 * after the lines before it; `"emit"` emits the error in-band and goes on
 * with the next line.
 *
 * @since 0.1.0
 * @category models
 */
export type OnBadLine = "fail" | "emit"

/**
 * Options asking for bad lines in-band: the stream's elements include `DecodeError`.
 *
 * @since 0.1.0
 * @category models
 */
export interface EmitOptions extends Options {
  readonly onBadLine: "emit"
}

/**
 * Options failing at the first bad line (the default).
 *
 * @since 0.1.0
 * @category models
 */
export interface FailOptions extends Options {
  readonly onBadLine?: "fail" | undefined
}

/**
 * A stage from bytes to `A`. The first bad line fails the stream with its
 * `DecodeError` after everything before it (`onBadLine: "fail"`, the
 * default); with `onBadLine: "emit"` the error is an element and the stream
 * goes on. Data-first or data-last.
 *
 * @since 0.1.0
 * @category models
 */
export interface FromBytes<A> {
  (options: EmitOptions): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<A | DecodeError, E, R>
  (options?: FailOptions): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<A, E | DecodeError, R>
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<A | DecodeError, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options: EmitOptions): Stream.Stream<A | DecodeError, E, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: FailOptions): Stream.Stream<A, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<A | DecodeError, E | DecodeError, R>
}

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLineBytes = 64 * 1024 * 1024

const LF = 0x0a
const CR = 0x0d
// The first line strips a BOM; later lines keep it (a BOM mid-stream is data).
const firstLineDecoder = new TextDecoder("utf-8", { fatal: true })
const lineDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lossyDecoder = new TextDecoder("utf-8", { ignoreBOM: true })
// Bytes of a line kept for the raw cut of an error: enough for `rawCutLength` characters.
const headBytes = 4 * rawCutLength
// A spanning line's buffer starts at `initialHeldBytes` and doubles. One of up to `retainedHeldBytes` is kept
// for the next line: lines of a few MiB (large tool results) come in series, and regrowing the buffer for each
// (fresh memory, faulted in page by page) cost more CPU than the copy into it. A larger one is freed at once.
const initialHeldBytes = 64 * 1024
const retainedHeldBytes = 8 * 1024 * 1024

// Lines are split on the byte 0x0A before any text decoding (0x0A never occurs inside a multi-byte UTF-8
// character). A line whole inside one chunk is decoded in place, nothing copied; the bytes of a line spanning
// chunks are copied into one buffer (the upstream may reuse its chunks) and decoded once at its end. That
// buffer grows through `transfer` up to `retainedHeldBytes`, then in place (see `grow`), and is released at
// once rather than at some later collection, so a 64 MiB line peaks near twice its size (its text, then its
// parsed value), not four.
// ES2024 `ArrayBuffer.prototype.transfer` (Node 21+); the project's TypeScript lib is ES2023.
const transfer = (buffer: ArrayBuffer, length: number): ArrayBuffer =>
  (buffer as ArrayBuffer & { transfer: (length: number) => ArrayBuffer }).transfer(length)

// ES2024 resizable buffers, past the TypeScript lib as `transfer` is.
type Resizable = ArrayBuffer & {
  readonly resizable: boolean
  readonly resize: (length: number) => void
  readonly transferToFixedLength: (length: number) => ArrayBuffer
}
const isResizable = (buffer: ArrayBuffer): buffer is Resizable => (buffer as Resizable).resizable === true
const resizableBuffer = (length: number, maxByteLength: number): Resizable =>
  new (ArrayBuffer as unknown as new(length: number, options: { readonly maxByteLength: number }) => Resizable)(
    length,
    { maxByteLength }
  )

// A spanning line's buffer grown to hold `size` bytes (of which `used` are held), doubling, up to `max`. Past the
// size kept for the next line it grows in place: a resizable buffer reserves `max` up front and maps only the
// pages it uses, where each doubling of a plain one copied the line into fresh memory (a 64 MiB line: 128 MiB
// faulted in and copied, a quarter of `Decode.messages`' time over such a line in bench/profile.ts). Below that
// size the buffer is a plain one, kept for the next line, as a reservation of `max` per splitter would not be.
const grow = (buffer: ArrayBuffer, used: number, size: number, max: number): ArrayBuffer => {
  const length = Math.min(Math.max(2 * buffer.byteLength, size), max)
  if (isResizable(buffer)) {
    buffer.resize(length)
    return buffer
  }
  if (length <= retainedHeldBytes) return transfer(buffer, length)
  let grown: ArrayBuffer
  try {
    grown = resizableBuffer(length, max)
  } catch {
    // No room to reserve `max` (a 32-bit process, a huge `maxLineBytes`): copied as below the kept size.
    return transfer(buffer, length)
  }
  new Uint8Array(grown, 0, used).set(new Uint8Array(buffer, 0, used))
  transfer(buffer, 0)
  return grown
}

// Frees a held buffer's memory now rather than at some later collection.
const free = (buffer: ArrayBuffer): void => {
  if (isResizable(buffer)) buffer.transferToFixedLength(0)
  else transfer(buffer, 0)
}

// Blank means JSON whitespace only (space, tab, CR); other Unicode spaces are data.
const isJsonBlank = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13) return false
  }
  return true
}

// V8's UTF-8 decoder (behind `TextDecoder`) is fast for ASCII but decodes other text at about a third of
// the speed of ICU's converter, which Node exposes as `buffer.transcode`; for a short line the extra calls
// cost more than they save. ICU's UTF-16 copy lives while the text is made (up to five times the line's
// size at once, against three), so non-ASCII lines over 1 MiB (tool results are mostly under it) stay on
// `TextDecoder`. The module is looked up at run time, so that this module still loads where there is no
// Node (and decodes with `TextDecoder` alone), and tried once (a Node built without ICU has no converter).
const utf16MinBytes = 512
const utf16MaxBytes = 1024 * 1024

const nodeBuffer = ((): typeof NodeBuffer | undefined => {
  const buffer = (globalThis as {
    readonly process?: { readonly getBuiltinModule?: (id: string) => unknown }
  }).process?.getBuiltinModule?.("node:buffer") as typeof NodeBuffer | undefined
  try {
    return buffer?.transcode(new Uint8Array([0xc3, 0xa9]), "utf8", "utf16le").toString("utf16le") === "é" &&
        buffer.isAscii(new Uint8Array([0x7b])) && buffer.isUtf8(new Uint8Array([0x7b]))
      ? buffer
      : undefined
  } catch {
    return undefined
  }
})()

// ASCII is its own Latin-1: Node's Latin-1 copy makes the same text without the decoder's checks, in half
// the time of `TextDecoder` on a line of a few KiB (most lines of a transcript). No BOM is ASCII.
const latin1 = (bytes: Uint8Array, buffer: typeof NodeBuffer.Buffer): string =>
  (buffer.isBuffer(bytes) ? bytes : buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)).toString("latin1")

// A line's text; throws as the fatal decoder does on invalid UTF-8 (ICU only ever sees valid UTF-8).
const decodeUtf8 = (bytes: Uint8Array, isFirst: boolean): string => {
  if (nodeBuffer !== undefined) {
    // ASCII at any size: the Latin-1 copy is the text, at one byte per character like the decoder's.
    if (nodeBuffer.isAscii(bytes)) return latin1(bytes, nodeBuffer.Buffer)
    if (bytes.length < utf16MinBytes || bytes.length > utf16MaxBytes || !nodeBuffer.isUtf8(bytes)) {
      return (isFirst ? firstLineDecoder : lineDecoder).decode(bytes)
    }
    const utf16 = nodeBuffer.transcode(bytes, "utf8", "utf16le")
    const text = utf16.toString("utf16le")
    // The UTF-16 copy is freed now, not at some later collection (a buffer of its own: transcode's result).
    transfer(utf16.buffer as ArrayBuffer, 0)
    return isFirst && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  }
  return (isFirst ? firstLineDecoder : lineDecoder).decode(bytes)
}

const cutBytes = (bytes: Uint8Array): string => {
  const text = lossyDecoder.decode(bytes.length > headBytes ? bytes.subarray(0, headBytes) : bytes)
  return text.length > rawCutLength || bytes.length > headBytes ? text.slice(0, rawCutLength) + "…" : text
}

/**
 * A push-based splitter, usable without Effect: feed it chunks with `push`,
 * then call `end`. Complete lines (and, with `onBadLine: "emit"`, errors) are appended
 * to `out`; with `"fail"` (the default) the first error is returned instead and the
 * splitter must not be used again.
 *
 * @since 0.1.0
 * @category models
 */
export interface Splitter {
  readonly push: (chunk: Uint8Array, out: Array<Line | DecodeError>) => DecodeError | undefined
  readonly end: (out: Array<Line | DecodeError>) => DecodeError | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeSplitter = (options: Options = {}): Splitter => {
  const maxLineBytes = options.maxLineBytes ?? defaultMaxLineBytes
  const emit = options.onBadLine === "emit"
  // Number of line terminators seen so far.
  let lineNo = 0
  let first = true
  // The bytes so far of a line spanning chunks.
  let spanning = false
  let held: ArrayBuffer | undefined
  let heldBytes = 0
  // Dropping the rest of a line already reported as too long.
  let skipping = false

  const tooLong = (line: number, head: Uint8Array, bytes: number | undefined): DecodeError =>
    decodeError(new LineTooLong({
      line,
      raw: cutBytes(head) + (head.length <= headBytes ? "…" : ""),
      detail: bytes === undefined
        ? `more than the limit of ${maxLineBytes} bytes (maxLineBytes)`
        : `${bytes} bytes, more than the limit of ${maxLineBytes} bytes (maxLineBytes)`,
      maxLineBytes
    }))

  const invalidUtf8 = (head: Uint8Array, bytes: number, cause: unknown): DecodeError =>
    decodeError(new InvalidUtf8({
      line: lineNo,
      raw: cutBytes(head),
      detail: `the line's ${bytes} bytes are not valid UTF-8`,
      cause
    }))

  const report = (error: DecodeError, out: Array<Line | DecodeError>): DecodeError | undefined => {
    if (!emit) return error
    out.push(error)
    return undefined
  }

  const accept = (text: string, out: Array<Line | DecodeError>): undefined => {
    // Only whitespace-led lines need the blank check; a JSON line starts with `{`.
    if (text.length > 0 && (text.charCodeAt(0) > 32 || !isJsonBlank(text))) out.push({ line: lineNo, text })
    return undefined
  }

  const decode = (bytes: Uint8Array, isFirst: boolean, out: Array<Line | DecodeError>): DecodeError | undefined => {
    let text: string
    try {
      text = decodeUtf8(bytes, isFirst)
    } catch (cause) {
      return report(invalidUtf8(bytes, bytes.length, cause), out)
    }
    return accept(text, out)
  }

  // A line that is whole inside one chunk: one decoder call, nothing copied.
  const wholeLine = (bytes: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    const isFirst = first
    first = false
    let end = bytes.length
    if (end > 0 && bytes[end - 1] === CR) end--
    if (end === 0) return undefined
    if (end > maxLineBytes) return report(tooLong(lineNo, bytes, end), out)
    return decode(end === bytes.length ? bytes : bytes.subarray(0, end), isFirst, out)
  }

  const hold = (part: Uint8Array) => {
    const size = heldBytes + part.length
    let buffer = held ?? new ArrayBuffer(Math.max(initialHeldBytes, size))
    if (size > buffer.byteLength) buffer = grow(buffer, heldBytes, size, maxLineBytes + 1)
    new Uint8Array(buffer, heldBytes, part.length).set(part)
    held = buffer
    heldBytes = size
  }

  // Ends the held line; a large buffer is freed now rather than kept or left to the collector.
  const release = () => {
    if (held !== undefined && held.byteLength > retainedHeldBytes) {
      free(held)
      held = undefined
    }
    spanning = false
    heldBytes = 0
  }

  // The first bytes of the held line and `part`, for an error's raw cut.
  const headWith = (part: Uint8Array): Uint8Array => {
    const head = new Uint8Array(Math.min(headBytes + 1, heldBytes + part.length))
    const fromHeld = Math.min(head.length, heldBytes)
    if (held !== undefined) head.set(new Uint8Array(held, 0, fromHeld))
    head.set(part.subarray(0, head.length - fromHeld), fromHeld)
    return head
  }

  // Bytes of the current line that end its chunk without a terminator.
  const partial = (part: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    spanning = true
    // One extra byte allowed: it may be the CR of a CRLF.
    if (heldBytes + part.length > maxLineBytes + 1) {
      const head = headWith(part)
      release()
      skipping = true
      first = false
      return report(tooLong(lineNo + 1, head, undefined), out)
    }
    hold(part)
    return undefined
  }

  // The rest of a spanning line, up to its terminator (or the end of the input).
  const finish = (part: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    const isFirst = first
    first = false
    if (heldBytes + part.length > maxLineBytes + 1) {
      const error = tooLong(lineNo, headWith(part), heldBytes + part.length)
      release()
      return report(error, out)
    }
    hold(part)
    let view = new Uint8Array(held!, 0, heldBytes)
    if (view[view.length - 1] === CR) view = view.subarray(0, view.length - 1)
    const error = view.length > maxLineBytes
      ? report(tooLong(lineNo, view, view.length), out)
      : decode(view, isFirst, out)
    release()
    return error
  }

  // A chunk that is all ASCII (most chunks of a transcript) as a Node buffer: its lines are read straight off
  // it as Latin-1, with no view made per line and no decoder call.
  const asciiChunk = (chunk: Uint8Array): NodeBuffer.Buffer | undefined => {
    if (nodeBuffer === undefined || !nodeBuffer.isAscii(chunk)) return undefined
    return nodeBuffer.Buffer.isBuffer(chunk) ? chunk : nodeBuffer.Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)
  }

  const push = (chunk: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    let start = 0
    const length = chunk.length
    const ascii = asciiChunk(chunk)
    while (start < length) {
      const nl = chunk.indexOf(LF, start)
      if (nl === -1) return skipping ? undefined : partial(chunk.subarray(start), out)
      lineNo++
      if (skipping) {
        skipping = false
      } else if (ascii !== undefined && !spanning && nl - start <= maxLineBytes) {
        first = false
        const end = nl > start && ascii[nl - 1] === CR ? nl - 1 : nl
        if (end > start) accept(ascii.toString("latin1", start, end), out)
      } else {
        const error = spanning ? finish(chunk.subarray(start, nl), out) : wholeLine(chunk.subarray(start, nl), out)
        if (error !== undefined) return error
      }
      start = nl + 1
    }
    return undefined
  }

  const end = (out: Array<Line | DecodeError>): DecodeError | undefined => {
    if (skipping || !spanning) return undefined
    lineNo++
    return finish(new Uint8Array(0), out)
  }

  return { push, end }
}

// The splitter as a per-chunk step function.
const splitterStepper = (options: Options | undefined): Stepper<Uint8Array, Line | DecodeError, DecodeError> => {
  const splitter = makeSplitter(options)
  return {
    step: (chunks: Arr.NonEmptyReadonlyArray<Uint8Array>, out) => pushAll(splitter, chunks, out),
    flush: splitter.end
  }
}

/**
 * Pushes several chunks; stops at the first error (with `onBadLine: "fail"`).
 *
 * @since 0.1.0
 * @category utils
 */
export const pushAll = (
  splitter: Splitter,
  chunks: ReadonlyArray<Uint8Array>,
  out: Array<Line | DecodeError>
): DecodeError | undefined => {
  for (let i = 0; i < chunks.length; i++) {
    const error = splitter.push(chunks[i]!, out)
    if (error !== undefined) return error
  }
  return undefined
}

/**
 * Splits a byte stream into numbered lines. The first bad line (invalid UTF-8,
 * too long) fails the stream after the lines before it; with
 * `onBadLine: "emit"` it is emitted as a `DecodeError` value and the stream
 * goes on.
 *
 * @since 0.1.0
 * @category combinators
 */
export const lines: FromBytes<Line> = dual(
  (args) => Stream.isStream(args[0]),
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Line | DecodeError, E | DecodeError, R> =>
    applyStepper(self, () => splitterStepper(options))
)
