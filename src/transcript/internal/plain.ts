/**
 * The transcript lines whose figures are their kind alone, told from their bytes before any text is made of
 * them ({@link plainKind}), and a filter in front of a line splitter that takes them out ({@link makeFilter}): the
 * splitter then decodes only the lines that carry usage or tool calls and results, prompts and system lines (under
 * 4% of the bytes of the bench's real-shaped transcripts: attachments and API request records are most of them).
 */
import * as nodeBuffer from "node:buffer"
import * as Transcript from "../Transcript.ts"

const LF = 0x0a
const CR = 0x0d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

// The end of the string whose opening quote is at `start`: its closing quote, the first one not escaped (after an
// even number of backslashes); -1 when the line ends first. Most strings of a line are short (keys, ids): their
// bytes are looked at here, a longer string's rest searched by `indexOf` (memchr; a call costs as much as
// looking at a few dozen bytes).
const stringEnd = (bytes: Buffer, start: number, end: number): number => {
  let at = start + 1
  const near = Math.min(end, at + 32)
  while (at < near && bytes[at] !== QUOTE) at++
  if (at === near) at = near === end ? -1 : bytes.indexOf(QUOTE, near)
  while (at !== -1 && at < end) {
    let b = at - 1
    while (bytes[b] === BACKSLASH) b--
    if ((at - 1 - b) % 2 === 0) return at
    at = bytes.indexOf(QUOTE, at + 1)
  }
  return -1
}

// Whether the key at `at` (after its quote) is `type` (4 bytes) or `subtype` (7), its length known.
const isType = (bytes: Buffer, at: number): boolean =>
  bytes[at] === 0x74 && bytes[at + 1] === 0x79 && bytes[at + 2] === 0x70 && bytes[at + 3] === 0x65
const isSubtype = (bytes: Buffer, at: number): boolean =>
  bytes[at] === 0x73 && bytes[at + 1] === 0x75 && bytes[at + 2] === 0x62 && isType(bytes, at + 3)

/**
 * The kind of the transcript line in `bytes` from `start` to `end` (no terminator) when its figures are its kind
 * alone, told from its bytes without decoding or parsing them; `undefined` when the bytes do not tell for sure
 * (the line then takes the full path). Its structure is walked, every string skipped whole (a quote inside a
 * string is escaped; the bytes of a multi-byte character are never ASCII), to find its top-level keys: the line
 * must be one object (its brackets balanced, closed by its last byte), with one top-level `type`, a plain string
 * naming a known entry type whose lines count nothing else (not an assistant message: usage; not a system line:
 * subtypes; not a user line: tool results, and a prompt that does not fit is a hole in the conversation, worth
 * its check for 1% of the bytes), and no top-level `subtype`. Keys
 * are read where the CLI writes them, a string right before a colon (JSON the CLI did not write, with spaces
 * around its colons, takes the full path). What the object holds under its top level (an attachment, a request's
 * shape) is not looked at: most bytes of such lines are in strings. The bytes are not checked for valid UTF-8
 * here (see {@link makeFilter}).
 */
export const plainKind = (bytes: Buffer, start: number, end: number): string | undefined => {
  const last = end - 1
  if (bytes[start] !== OPEN_BRACE || bytes[last] !== CLOSE_BRACE) return undefined
  let depth = 0
  let type: string | undefined
  for (let i = start; i <= last; i++) {
    const c = bytes[i]
    if (c === QUOTE) {
      const close = stringEnd(bytes, i, end)
      if (close === -1) return undefined
      const length = close - i - 1
      // A key: a string right before a colon. Only `type` and `subtype` matter.
      if ((length === 4 || length === 7) && bytes[close + 1] === COLON) {
        if (length === 7) {
          if (depth === 1 && isSubtype(bytes, i + 1)) return undefined
        } else if (depth === 1 && isType(bytes, i + 1)) {
          if (type !== undefined || bytes[close + 2] !== QUOTE) return undefined
          const valueEnd = stringEnd(bytes, close + 2, end)
          if (valueEnd === -1) return undefined
          // Latin-1: a known type is ASCII, and a type with other bytes is no known one either way.
          type = bytes.toString("latin1", close + 3, valueEnd)
          i = valueEnd
          continue
        }
      }
      i = close
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      // The object closes only at the last byte.
      if (--depth === 0 && i !== last) return undefined
    }
  }
  if (depth !== 0 || type === undefined) return undefined
  if (
    type === "user" || type === "assistant" || type === "system" || type.includes("\\") || !Transcript.isKnownType(type)
  ) {
    return undefined
  }
  return type
}

// Lines spanning reads are held whole up to this size to be told; a longer one goes to the splitter as it comes
// (and is checked in full).
const maxHeldBytes = 8 * 1024 * 1024
// What a line told by its kind leaves for the splitter: its terminator alone, so that the lines after it keep
// their numbers.
const newlines = Buffer.alloc(4096, LF)
const empty = Buffer.alloc(0)
// Buffers for held lines, reused from file to file (a new one per file was garbage of 64 KiB or more each).
const spareHeld: Array<Buffer> = []

/**
 * A transcript's bytes as read, to a line splitter (`split`, fed in order) without the lines {@link plainKind}
 * tells, which go to `plain` with their line numbers instead (each leaves its terminator to the splitter, a blank
 * line to it, so the numbers of the lines after it stay right). A line is told only when it is whole: one
 * spanning reads is held up to {@link maxHeldBytes}. A told line of bytes that are not UTF-8 is left to the
 * splitter, which says so.
 */
export const makeFilter = (
  split: (bytes: Uint8Array) => void,
  plain: (line: number, kind: string) => void
) => {
  // Lines seen so far (terminators).
  let lineNo = 0
  // The start of a line that spans reads: held, or (once too long to hold) passed on as it comes.
  let held: Buffer | undefined
  let heldBytes = 0
  let passing = false
  // Told lines in a row, not yet given to the splitter as terminators.
  let pendingNewlines = 0

  const flushNewlines = () => {
    while (pendingNewlines > 0) {
      const n = Math.min(pendingNewlines, newlines.length)
      split(newlines.subarray(0, n))
      pendingNewlines -= n
    }
  }
  const pass = (bytes: Buffer, from = 0, to = bytes.length) => {
    flushNewlines()
    if (to > from) split(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to))
  }

  // The kind of a whole line (from `start` to its terminator at `nl`, or the end of the input) when it is told.
  // `utf8`: the line is known to be UTF-8 (its chunk's whole lines are).
  const tell = (bytes: Buffer, start: number, nl: number, utf8: boolean): string | undefined => {
    const end = nl > start && bytes[nl - 1] === CR ? nl - 1 : nl
    if (end === start) return undefined
    const kind = plainKind(bytes, start, end)
    return kind === undefined || (!utf8 && !nodeBuffer.isUtf8(bytes.subarray(start, end))) ? undefined : kind
  }
  // A told line: the untold bytes before it go first, so that the lines are counted in their order.
  const told = (line: number, kind: string, bytes: Buffer, from: number, to: number, terminated: boolean) => {
    pass(bytes, from, to)
    plain(line, kind)
    if (terminated) pendingNewlines++
  }

  const hold = (part: Buffer) => {
    const size = heldBytes + part.length
    if (held === undefined || size > held.length) {
      const spare = held === undefined ? spareHeld.pop() : undefined
      const grown = spare !== undefined && spare.length >= size
        ? spare
        : Buffer.allocUnsafeSlow(Math.min(Math.max(2 * (held?.length ?? 0), size, 64 * 1024), maxHeldBytes))
      if (held !== undefined) held.copy(grown, 0, 0, heldBytes)
      held = grown
    }
    part.copy(held, heldBytes)
    heldBytes = size
  }

  // The rest of a spanning line: up to and with its terminator (`terminated`), or to the end of the input.
  const finishSpanning = (part: Buffer, terminated: boolean) => {
    lineNo++
    if (passing || heldBytes + part.length > maxHeldBytes) {
      if (heldBytes > 0) pass(held!, 0, heldBytes)
      heldBytes = 0
      passing = false
      return pass(part)
    }
    hold(part)
    const line = held!
    const length = heldBytes
    heldBytes = 0
    const kind = tell(line, 0, terminated ? length - 1 : length, false)
    if (kind === undefined) pass(line, 0, length)
    else told(lineNo, kind, line, 0, 0, terminated)
  }

  const startSpanning = (part: Buffer) => {
    if (passing) return pass(part)
    if (heldBytes + part.length > maxHeldBytes) {
      if (heldBytes > 0) pass(held!, 0, heldBytes)
      heldBytes = 0
      passing = true
      return pass(part)
    }
    hold(part)
  }

  const push = (chunk: Uint8Array): void => {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)
    let start = 0
    // Untold bytes from `from` on, given to the splitter in one piece once a told line (or the chunk) ends them.
    let from = 0
    if (heldBytes > 0 || passing) {
      const nl = bytes.indexOf(LF)
      if (nl === -1) return startSpanning(bytes)
      finishSpanning(bytes.subarray(0, nl + 1), true)
      start = from = nl + 1
    }
    // The chunk's whole lines checked at once (a terminator is never inside a character): when they are not all
    // UTF-8, each told line is checked alone.
    const whole = bytes.lastIndexOf(LF) + 1
    const utf8 = nodeBuffer.isAscii(bytes) || (whole > start && nodeBuffer.isUtf8(bytes.subarray(start, whole)))
    while (start < bytes.length) {
      const nl = bytes.indexOf(LF, start)
      if (nl === -1) {
        pass(bytes, from, start)
        return startSpanning(bytes.subarray(start))
      }
      lineNo++
      const kind = tell(bytes, start, nl, utf8)
      if (kind !== undefined) {
        told(lineNo, kind, bytes, from, start, true)
        from = nl + 1
      }
      start = nl + 1
    }
    pass(bytes, from, start)
  }

  // The input's end: a last line without a terminator.
  const end = (): void => {
    if (heldBytes > 0 || passing) finishSpanning(empty, false)
    flushNewlines()
    if (held !== undefined) spareHeld.push(held)
    held = undefined
  }

  return { push, end }
}
