/**
 * A JSONL file read line by line in chunks: one line at a time is a string, never the file, so a transcript
 * past V8's string limit reads, in memory bounded by what the caller keeps of its entries.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import * as FileBytes from "../../stream/internal/fileBytes.ts"

/** A terminated line that is not a JSON object: `line` counts from 1. */
export class BadLine extends Data.TaggedError("BadLine")<{ readonly line: number; readonly cause: unknown }> {}

/** Where a read ended. */
export interface Scan {
  /** Lines read (blank ones too): the next line's number is `lines + 1`. */
  readonly lines: number
  /** The byte offset just after the last line that ends with a newline. */
  readonly end: number
  /** What follows that newline (a line nobody has terminated yet), decoded; `""` for nothing. */
  readonly tail: string
}

/** A line as a JSON object; `undefined` for a line that is not one. */
export const objectOf = (line: string): Record<string, unknown> | undefined => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  return Predicate.isObject(value) ? value as Record<string, unknown> : undefined
}

const newline = 0x0a

/**
 * Reads `file` from `from.offset` (a line start; `from.lines` lines come before it), giving each terminated,
 * non-blank line's object to `onEntry` with its number. A terminated line that is not a JSON object fails
 * with {@link BadLine}; the unterminated rest is returned, not parsed.
 */
export const scan = (
  fs: FileSystem.FileSystem,
  file: string,
  from: { readonly offset: number; readonly lines: number },
  onEntry: (entry: Record<string, unknown>, line: number) => void,
  chunkSize: number = FileBytes.readSize
): Effect.Effect<Scan, PlatformError.PlatformError | BadLine> =>
  Effect.suspend(() => {
    const decoder = new TextDecoder()
    // The bytes of the line read so far, when it spans chunks.
    let pending: Array<Uint8Array> = []
    let lines = from.lines
    let end = from.offset
    // One terminated line; what is wrong with it, if anything.
    const line = (bytes: Uint8Array): BadLine | undefined => {
      lines++
      end += bytes.length + 1
      const text = decoder.decode(bytes)
      if (text.trim() === "") return undefined
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (cause) {
        return new BadLine({ line: lines, cause })
      }
      if (!Predicate.isObject(value)) {
        const what = Array.isArray(value) ? "array" : value === null ? "null" : typeof value
        return new BadLine({ line: lines, cause: new Error(`a JSON ${what}, not an object`) })
      }
      onEntry(value as Record<string, unknown>, lines)
      return undefined
    }
    const joined = (last: Uint8Array): Uint8Array => pending.length === 0 ? last : Buffer.concat([...pending, last])
    return fs.stream(file, { offset: from.offset, chunkSize }).pipe(
      Stream.runForEach((chunk) =>
        Effect.suspend(() => {
          let start = 0
          let at = chunk.indexOf(newline)
          while (at !== -1) {
            const bad = line(joined(chunk.subarray(start, at)))
            pending = []
            if (bad !== undefined) return Effect.fail(bad)
            start = at + 1
            at = chunk.indexOf(newline, start)
          }
          if (start < chunk.length) pending.push(chunk.subarray(start))
          return Effect.void
        })
      ),
      Effect.map((): Scan => ({ lines, end, tail: pending.length === 0 ? "" : decoder.decode(Buffer.concat(pending)) }))
    )
  })
