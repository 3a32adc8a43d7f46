/**
 * A transcript's bytes, chunk by chunk as they are read, to its figures (the fold of `counter.ts`), in memory
 * bounded by a chunk and the longest line.
 */
import * as nodeFs from "node:fs"
import type * as Decode from "../../stream/Decode.ts"
import { isDecodeError } from "../../stream/DecodeError.ts"
import * as Ndjson from "../../stream/Ndjson.ts"
import * as TranscriptDecode from "../Decode.ts"
import * as TranscriptDetect from "../Detect.ts"
import * as Pricing from "../Pricing.ts"
import type * as Stats from "./figures.ts"
import * as Counter from "./counter.ts"
import * as Head from "./head.ts"
import * as Plain from "./plain.ts"

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


// One transcript's bytes, chunk by chunk as they are read, to its figures: the lines the decoder
// (TranscriptDecode) would give, those with nothing counted but their kind (see LineCheck) taken out before the
// splitter makes text of them (Plain.makeFilter).
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
      const entry = TranscriptDecode.decodeLine(line)
      counter.pushTranscriptEntry(isDecodeError(entry) ? entry : { line: line.line, raw: line.text, entry })
    }
    lines.length = 0
    if (framingError !== undefined) counter.pushTranscriptEntry(framingError)
  }
  const split = (bytes: Uint8Array): void => count(splitter.push(bytes, lines))
  const filter = check === "every" ? undefined : Plain.makeFilter(split, counter.pushPlain)
  const end = () => {
    filter?.end()
    count(splitter.end(lines))
  }
  return {
    push: (bytes: Uint8Array): void => {
      if (bytes.length === 0) return
      if (filter === undefined) split(bytes)
      else filter.push(bytes)
    },
    done: (): Stats.FileStats => {
      end()
      return counter.done()
    },
    unsettled: (): Counter.Unsettled => {
      end()
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

