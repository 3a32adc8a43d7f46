/**
 * A transcript's bytes, chunk by chunk as they are read, to its figures (the fold of `counter.ts`), in memory
 * bounded by a chunk and the longest line.
 */
import * as Transcript from "../../schema/Transcript.ts"
import type * as Decode from "../../stream/Decode.ts"
import { isDecodeError } from "../../stream/DecodeError.ts"
import * as Ndjson from "../../stream/Ndjson.ts"
import * as TranscriptDecode from "../Decode.ts"
import * as TranscriptDetect from "../Detect.ts"
import type * as Stats from "./figures.ts"
import * as Counter from "./counter.ts"
import * as Head from "./head.ts"
import * as Pricing from "../Pricing.ts"

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


const typeKey = "\"type\":\""

// The kind of a transcript line whose figures are its kind alone, told from its text without parsing it;
// `undefined` when the text does not tell for sure (the line then takes the full path). Sure means: the line's
// first `"type":"` is at its top level (nothing opened before it; in JSON text a quote inside a string is escaped,
// so the key is not inside a value), naming a known entry type whose lines count nothing else (not an assistant
// message: usage; not a system line: subtypes), and it is the line's only one (no content block, so no tool call
// or result), with no subtype, and the line an object as far as its ends show. The cheap refusals come first:
// most bytes are in lines that carry blocks, told by the first few hundred bytes.
const plainKind = (text: string): string | undefined => {
  if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) return undefined
  const at = text.indexOf(typeKey)
  if (at === -1 || text.lastIndexOf("{", at) > 0 || text.lastIndexOf("[", at) !== -1) return undefined
  const start = at + typeKey.length
  const type = text.slice(start, text.indexOf("\"", start))
  if (type === "assistant" || type === "system" || type.includes("\\") || !Transcript.isKnownType(type)) return undefined
  if (text.indexOf(typeKey, start) !== -1 || text.includes("\"subtype\"")) return undefined
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
    }
  }
}

