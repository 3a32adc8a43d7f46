/**
 * A transcript's bytes, chunk by chunk as they are read, to its figures (the fold of `counter.ts`), in memory
 * bounded by a chunk and the longest line.
 */
import * as nodeFs from "node:fs"
import * as Transcript from "../Transcript.ts"
import type * as Decode from "../../stream/Decode.ts"
import { isDecodeError } from "../../stream/DecodeError.ts"
import * as Ndjson from "../../stream/Ndjson.ts"
import * as TranscriptDecode from "../Decode.ts"
import * as TranscriptDetect from "../Detect.ts"
import * as Pricing from "../Pricing.ts"
import type * as Stats from "./figures.ts"
import * as Counter from "./counter.ts"
import * as Head from "./head.ts"

// Reads of a transcript file: as much as Head.formatOf looks at (so the first read tells the format), into a
// buffer reused from file to file (the decoder keeps no chunk). Not more: a chunk's lines stay alive until it is
// counted, and with 1 MiB reads enough of them outlive young-generation collections to raise the peak memory by
// a fifth (a third on a 500 MB transcript) for no time saved.
// A Node Buffer, not a bare Uint8Array: the line splitter's `indexOf` is then Buffer's (memchr), several times
// faster on long lines.
const readBytes = Head.bytes
const spareBuffers: Array<Buffer> = []

/** A read buffer: one given back earlier, or a new one. */
export const takeBuffer = (): Buffer => spareBuffers.pop() ?? Buffer.allocUnsafeSlow(readBytes)

/** Gives a buffer back for the next file. */
export const giveBuffer = (buffer: Buffer): void => {
  spareBuffers.push(buffer)
}

const headDecoder = new TextDecoder()

// Whether a file is a transcript from its first read, as Head.formatOf tells: in most files the first line
// alone tells (a line that does is where detection stops), and decoding it costs less than decoding the 64 KiB
// Head.formatOf looks at. A first line that does not tell says "stream-json" here: then the whole head decides.
export const isTranscript = (head: Uint8Array): boolean => {
  const end = head.indexOf(0x0a)
  if (end !== -1 && end < Head.bytes && TranscriptDetect.detect(headDecoder.decode(head.subarray(0, end + 1))) === "transcript") {
    return true
  }
  return Head.formatOf(head) === "transcript"
}


const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a

// The end of the string whose opening quote is at `start`: its closing quote, the first one not escaped (after an
// even number of backslashes); -1 when the text ends first.
const stringEnd = (text: string, start: number): number => {
  let end = text.indexOf("\"", start + 1)
  while (end !== -1) {
    let b = end - 1
    while (text.charCodeAt(b) === BACKSLASH) b--
    if ((end - 1 - b) % 2 === 0) return end
    end = text.indexOf("\"", end + 1)
  }
  return -1
}

// The kind of a transcript line whose figures are its kind alone, told from its text without parsing it;
// `undefined` when the text does not tell for sure (the line then takes the full path). Its structure is walked,
// every string skipped whole (a quote inside a string is escaped), to find its top-level keys: the line must be one
// object (its brackets balanced, closed by its last character), with one top-level `type`, a plain string naming a
// known entry type whose lines count nothing else (not an assistant message: usage; not a system line: subtypes;
// not a user line with a `type` under its top level: content blocks), and no top-level `subtype`. Keys are read
// where the CLI writes them, a string right before a colon (JSON the CLI did not write, with spaces around its
// colons, takes the full path). What the object holds under its top level (an attachment, a request's shape) is
// not looked at: most bytes of such lines are in strings.
const plainKind = (text: string): string | undefined => {
  const last = text.length - 1
  if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(last) !== 0x7d) return undefined
  let depth = 0
  let type: string | undefined
  // A `type` key under the top level: a prompt with one holds content blocks (tool results, say).
  let nestedType = false
  for (let i = 0; i <= last; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (end === -1) return undefined
      const length = end - i - 1
      // A key: a string right before a colon. Only `type` and `subtype` matter.
      if ((length === 4 || length === 7) && text.charCodeAt(end + 1) === COLON) {
        if (length === 7) {
          if (depth === 1 && text.startsWith("subtype", i + 1)) return undefined
        } else if (text.startsWith("type", i + 1)) {
          if (depth > 1) {
            nestedType = true
          } else {
            if (type !== undefined || text.charCodeAt(end + 2) !== QUOTE) return undefined
            const valueEnd = stringEnd(text, end + 2)
            if (valueEnd === -1) return undefined
            type = text.slice(end + 3, valueEnd)
            i = valueEnd
            continue
          }
        }
      }
      i = end
    } else if (c === 0x7b || c === 0x5b) {
      depth++
    } else if (c === 0x7d || c === 0x5d) {
      // The object closes only at the last character.
      if (--depth === 0 && i !== last) return undefined
    }
  }
  if (depth !== 0 || type === undefined) return undefined
  if (
    (type === "user" && nestedType) || type === "assistant" || type === "system" || type.includes("\\") ||
    !Transcript.isKnownType(type)
  ) {
    return undefined
  }
  return type
}

// One transcript's bytes, chunk by chunk as they are read, to its figures: the lines the decoder
// (TranscriptDecode) would give, those with nothing counted but their kind (see LineCheck) without parsing them.
export const transcriptCounting = (path: string, seen: Stats.Seen | undefined, check: Stats.LineCheck) => {
  const counter = Counter.makeCounter(path, Pricing.costOf, seen)
  const splitter = Ndjson.makeSplitter({ onBadLine: "emit" })
  const lines: Array<Ndjson.Line | Decode.DecodeError> = []
  const count = (framingError: Decode.DecodeError | undefined) => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      if (isDecodeError(line)) {
        counter.pushTranscriptEntry(line)
        continue
      }
      const kind = check === "every" ? undefined : plainKind(line.text)
      if (kind !== undefined) {
        counter.pushPlain(line.line, kind)
        continue
      }
      const entry = TranscriptDecode.decodeLine(line)
      counter.pushTranscriptEntry(isDecodeError(entry) ? entry : { line: line.line, raw: line.text, entry })
    }
    lines.length = 0
    if (framingError !== undefined) counter.pushTranscriptEntry(framingError)
  }
  return {
    push: (bytes: Uint8Array): void => {
      if (bytes.length > 0) count(splitter.push(bytes, lines))
    },
    done: (): Stats.FileStats => {
      count(splitter.end(lines))
      return counter.done()
    },
    unsettled: (): Counter.Unsettled => {
      count(splitter.end(lines))
      return counter.unsettled()
    }
  }
}

/**
 * A transcript file's lines counted through `node:fs` synchronously, but for what the files before it decide
 * (see Counter.settle): `undefined` for a file that is not a transcript or not a regular file (not opened).
 * Throws what `node:fs` throws.
 */
export const unsettledFileSync = (path: string, check: Stats.LineCheck): Counter.Unsettled | undefined => {
  // Not even opened unless a regular file: opening a named pipe, however briefly, lets its writer in, whose
  // writes then fail once it is closed, and the read that counts it waits for a writer that never comes.
  if (!nodeFs.statSync(path).isFile()) return undefined
  const fd = nodeFs.openSync(path, nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK)
  const buffer = takeBuffer()
  try {
    if (!nodeFs.fstatSync(fd).isFile()) return undefined
    let read = nodeFs.readSync(fd, buffer, 0, buffer.length, null)
    if (!isTranscript(buffer.subarray(0, read))) return undefined
    const counting = transcriptCounting(path, undefined, check)
    while (true) {
      if (read > 0) counting.push(buffer.subarray(0, read))
      // A short read is the end of a regular file (as far as it is written): no read more to learn it.
      if (read < buffer.length) break
      read = nodeFs.readSync(fd, buffer, 0, buffer.length, null)
    }
    return counting.unsettled()
  } finally {
    giveBuffer(buffer)
    nodeFs.closeSync(fd)
  }
}

