/**
 * NDJSON framing over bytes: `Stream<Uint8Array>` to numbered text lines.
 *
 * Lines are split on the byte 0x0A before any text decoding (0x0A never
 * occurs inside a multi-byte UTF-8 character). A line whole inside one chunk
 * is decoded with one fatal `TextDecoder` call and nothing is copied; a line
 * spanning chunks is decoded part by part as its bytes arrive (a streaming
 * decoder joins characters split across chunks), so no bytes are held beyond
 * the current chunk. Handles CRLF, blank lines (skipped, but counted in line
 * numbers; blank means JSON whitespace only), a missing final newline and a
 * leading BOM. A line longer than `maxLineBytes` is dropped as it arrives and
 * a `LineTooLong` error names it.
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import { dual } from "effect/Function"
import * as Stream from "effect/Stream"
import { DecodeError, rawCutLength } from "./DecodeError.ts"
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
}

/**
 * What happens to a bad line (invalid UTF-8, too long): `"fail"` stops the
 * stream with the error after the lines before it; `"emit"` emits the error
 * in-band and goes on with the next line.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "fail" | "emit"

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
const CR_BYTES = new Uint8Array([CR])
// Bytes of a line kept for the raw cut of an error: enough for `rawCutLength` characters.
const headBytes = 4 * rawCutLength

// Blank means JSON whitespace only (space, tab, CR); other Unicode spaces are data.
const isJsonBlank = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13) return false
  }
  return true
}

const cutBytes = (bytes: Uint8Array): string => {
  const text = lossyDecoder.decode(bytes.length > headBytes ? bytes.subarray(0, headBytes) : bytes)
  return text.length > rawCutLength || bytes.length > headBytes ? text.slice(0, rawCutLength) + "…" : text
}

/**
 * A push-based splitter, usable without Effect: feed it chunks with `push`,
 * then call `end`. Complete lines (and, in `"emit"` mode, errors) are appended
 * to `out`; in `"fail"` mode the first error is returned instead and the
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
export const makeSplitter = (options: Options & { readonly mode: Mode }): Splitter => {
  const maxLineBytes = options.maxLineBytes ?? defaultMaxLineBytes
  const emit = options.mode === "emit"
  // Number of line terminators seen so far.
  let lineNo = 0
  let first = true
  // A line spanning chunks is decoded part by part as its bytes arrive (a
  // streaming decoder keeps characters split across chunks), so no bytes are
  // held: only the text so far, a small head for error cuts, and a trailing CR.
  let spanning = false
  let pendingText: Array<string> = []
  let pendingBytes = 0
  let head: Uint8Array = new Uint8Array(0)
  let heldCR = false
  let invalid: unknown = undefined
  let decoder: TextDecoder | undefined
  // Dropping the rest of a line already reported as too long.
  let skipping = false

  const tooLong = (line: number, bytes: number | undefined): DecodeError =>
    new DecodeError({
      reason: "LineTooLong",
      line,
      raw: cutBytes(head) + (head.length <= headBytes ? "…" : ""),
      detail: bytes === undefined
        ? `more than ${maxLineBytes} bytes (the limit is maxLineBytes)`
        : `${bytes} bytes, more than ${maxLineBytes} (the limit is maxLineBytes)`,
      maxLineBytes
    })

  const invalidUtf8 = (bytes: number, cause: unknown): DecodeError =>
    new DecodeError({
      reason: "InvalidUtf8",
      line: lineNo,
      raw: cutBytes(head),
      detail: `the line's ${bytes} bytes are not valid UTF-8`,
      cause
    })

  const report = (error: DecodeError, out: Array<Line | DecodeError>): DecodeError | undefined => {
    if (!emit) return error
    out.push(error)
    return undefined
  }

  const reset = () => {
    spanning = false
    pendingText = []
    pendingBytes = 0
    heldCR = false
    invalid = undefined
    decoder = undefined
  }

  const accept = (text: string, out: Array<Line | DecodeError>): undefined => {
    // Only whitespace-led lines need the blank check; a JSON line starts with `{`.
    if (text.length > 0 && (text.charCodeAt(0) > 32 || !isJsonBlank(text))) out.push({ line: lineNo, text })
    return undefined
  }

  // A line that is whole inside one chunk: one decoder call, nothing copied.
  const wholeLine = (bytes: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    const isFirst = first
    first = false
    let end = bytes.length
    if (end > 0 && bytes[end - 1] === CR) end--
    if (end === 0) return undefined
    if (end > maxLineBytes) {
      head = bytes
      return report(tooLong(lineNo, end), out)
    }
    const view = end === bytes.length ? bytes : bytes.subarray(0, end)
    try {
      return accept((isFirst ? firstLineDecoder : lineDecoder).decode(view), out)
    } catch (cause) {
      head = view
      return report(invalidUtf8(end, cause), out)
    }
  }

  // Decodes one more part of a spanning line (`last`: the part that ends it).
  const decodePart = (part: Uint8Array, last: boolean) => {
    if (invalid !== undefined) return
    try {
      if (heldCR) pendingText.push(decoder!.decode(CR_BYTES, { stream: true }))
      pendingText.push(decoder!.decode(part, { stream: !last }))
    } catch (cause) {
      invalid = cause
    }
  }

  const growHead = (part: Uint8Array) => {
    if (head.length >= headBytes || part.length === 0) return
    const grown = new Uint8Array(Math.min(headBytes, head.length + part.length))
    grown.set(head)
    grown.set(part.subarray(0, grown.length - head.length), head.length)
    head = grown
  }

  // Bytes of the current line that end its chunk without a terminator.
  const partial = (part: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    const size = pendingBytes + part.length
    if (!spanning) {
      spanning = true
      decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: !first })
      head = part.slice(0, headBytes)
    } else {
      growHead(part)
    }
    // One extra byte allowed: it may be the CR of a CRLF.
    if (size > maxLineBytes + 1) {
      reset()
      skipping = true
      first = false
      return report(tooLong(lineNo + 1, undefined), out)
    }
    pendingBytes = size
    // A trailing CR is held back: it is dropped if the next byte is LF.
    const endsInCR = part[part.length - 1] === CR
    decodePart(endsInCR ? part.subarray(0, part.length - 1) : part, false)
    heldCR = endsInCR
    return undefined
  }

  // The rest of a spanning line, up to its terminator (or the end of the input).
  const finish = (part: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    first = false
    let end = part.length
    let bytes = pendingBytes
    if (end > 0 && part[end - 1] === CR) {
      end--
    } else if (end === 0 && heldCR) {
      // The held CR was the CR of this line's CRLF.
      heldCR = false
      bytes--
    }
    bytes += end
    const view = end === part.length ? part : part.subarray(0, end)
    growHead(view)
    decodePart(view, true)
    const cause = invalid
    const text = pendingText.join("")
    reset()
    if (bytes > maxLineBytes) return report(tooLong(lineNo, bytes), out)
    if (cause !== undefined) return report(invalidUtf8(bytes, cause), out)
    return accept(text, out)
  }

  const push = (chunk: Uint8Array, out: Array<Line | DecodeError>): DecodeError | undefined => {
    let start = 0
    const length = chunk.length
    while (start < length) {
      const nl = chunk.indexOf(LF, start)
      if (nl === -1) return skipping ? undefined : partial(chunk.subarray(start), out)
      lineNo++
      if (skipping) {
        skipping = false
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
const splitterStepper = (options: Options & { readonly mode: Mode }): Stepper<Uint8Array, Line | DecodeError, DecodeError> => {
  const splitter = makeSplitter(options)
  return {
    step: (chunks: Arr.NonEmptyReadonlyArray<Uint8Array>, out) => pushAll(splitter, chunks, out),
    flush: splitter.end
  }
}

/**
 * Pushes several chunks; stops at the first error (in `"fail"` mode).
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
 * Splits a byte stream into numbered lines; the first bad line (invalid UTF-8,
 * too long) fails the stream after the lines before it.
 *
 * @since 0.1.0
 * @category combinators
 */
export const lines: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Line, E | DecodeError, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Line, E | DecodeError, R>
} = dual(
  (args) => Stream.isStream(args[0]),
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Line, E | DecodeError, R> =>
    applyStepper(self, () => splitterStepper({ ...options, mode: "fail" })) as Stream.Stream<
      Line,
      E | DecodeError,
      R
    >
)

/**
 * Splits a byte stream into numbered lines; a bad line (invalid UTF-8, too
 * long) is emitted as a `DecodeError` value and the stream goes on.
 *
 * @since 0.1.0
 * @category combinators
 */
export const linesLenient: {
  (options?: Options): <E, R>(self: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Line | DecodeError, E, R>
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Line | DecodeError, E, R>
} = dual(
  (args) => Stream.isStream(args[0]),
  <E, R>(self: Stream.Stream<Uint8Array, E, R>, options?: Options): Stream.Stream<Line | DecodeError, E, R> =>
    applyStepper(self, () => splitterStepper({ ...options, mode: "emit" })) as Stream.Stream<
      Line | DecodeError,
      E,
      R
    >
)
