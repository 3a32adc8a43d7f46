/**
 * The end of what a process wrote to stderr, for errors: bounded, redacted, cut at a character.
 */
import * as Redaction from "../../internal/redaction.ts"

/**
 * How much of stderr errors keep when `stderrTailBytes` is not set: 8 KiB.
 */
export const defaultStderrTailBytes = 8 * 1024

/**
 * The end of what a process wrote to stderr, for errors.
 */
export interface Tail {
  readonly push: (chunk: Uint8Array) => void
  /** At most the last `limit` bytes, secrets redacted; a tail that was cut starts with "…". */
  readonly text: () => string
}

const ellipsis = "…"
const encoder = new TextEncoder()
const decoder = new TextDecoder()

// The bytes from the first character that starts at or after `from` (a cut never shows half a character).
const fromCharacter = (bytes: Uint8Array, from: number): Uint8Array => {
  let start = Math.max(0, from)
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return bytes.subarray(start)
}

/**
 * Keeps the end of what is written to it. It holds twice `limit` bytes and redacts them before cutting to
 * `limit`, so that a secret straddling where the shown text starts is whole when it is redacted; the start
 * of the held bytes is a cut edge too (see `Redaction.Edges`). Without `redact`, only key-shaped values
 * are redacted.
 */
export const makeTail = (limit: number, redact: Redaction.Redact = Redaction.redactor([])): Tail => {
  const hold = 2 * limit
  let chunks: Array<Uint8Array> = []
  let size = 0
  let dropped = false
  return {
    push: (chunk) => {
      chunks.push(chunk)
      size += chunk.length
      while (chunks.length > 1 && size - chunks[0]!.length >= hold) {
        size -= chunks[0]!.length
        chunks.shift()
        dropped = true
      }
    },
    text: () => {
      const all = Buffer.concat(chunks)
      chunks = [all]
      const cut = dropped || all.length > hold
      const held = redact(decoder.decode(cut ? fromCharacter(all, all.length - hold) : all), { start: cut })
      const bytes = encoder.encode(held)
      if (!cut && bytes.length <= limit) return held
      // Cut again, after redaction: the ellipsis counts towards the limit.
      const budget = limit - encoder.encode(ellipsis).length
      if (budget <= 0) return ""
      const shown = bytes.length <= budget ? held : redact(decoder.decode(fromCharacter(bytes, bytes.length - budget)), { start: true })
      return ellipsis + shown
    }
  }
}
