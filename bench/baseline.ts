/**
 * The reference readers the library is measured against; none of them loads
 * Effect, so their peak RSS is their own.
 *
 * - (a) split + `JSON.parse`, on text and on bytes;
 * - (b) the official Agent SDK's way of reading the CLI's stdout: `node:readline`
 *   over the stream, `trim()`, `JSON.parse` in a try/catch, no validation
 *   (mirrors `ProcessTransport.readMessages` in `@anthropic-ai/claude-agent-sdk/sdk.mjs`);
 * - (c) the same reader plus zod 4 validation of every message.
 */
import * as readline from "node:readline"
import type { Readable } from "node:stream"

/** What a reader saw: messages accepted and lines rejected. */
export interface Tally {
  messages: number
  rejected: number
}

const LF = 0x0a

/** (a, text) `setEncoding("utf8")`, split on `"\n"`, `JSON.parse`. */
export const splitText = async (input: Readable): Promise<Tally> => {
  const tally: Tally = { messages: 0, rejected: 0 }
  input.setEncoding("utf8")
  let pending = ""
  const take = (line: string) => {
    if (line.length === 0) return
    JSON.parse(line)
    tally.messages++
  }
  for await (const chunk of input as AsyncIterable<string>) {
    let start = 0
    let nl = chunk.indexOf("\n")
    if (nl !== -1 && pending.length > 0) {
      take(pending + chunk.slice(0, nl))
      pending = ""
      start = nl + 1
      nl = chunk.indexOf("\n", start)
    }
    while (nl !== -1) {
      take(chunk.slice(start, nl))
      start = nl + 1
      nl = chunk.indexOf("\n", start)
    }
    pending += chunk.slice(start)
  }
  take(pending)
  return tally
}

/** (a, bytes) split on byte 0x0A, one `TextDecoder` call per line, `JSON.parse`. */
export const splitBytes = async (input: Readable): Promise<Tally> => {
  const tally: Tally = { messages: 0, rejected: 0 }
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let pending: Array<Uint8Array> = []
  let pendingBytes = 0
  const take = (line: Uint8Array) => {
    if (line.length === 0) return
    JSON.parse(decoder.decode(line))
    tally.messages++
  }
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0
    let nl = chunk.indexOf(LF)
    while (nl !== -1) {
      if (pendingBytes > 0) {
        pending.push(chunk.subarray(start, nl))
        take(Buffer.concat(pending, pendingBytes + nl - start))
        pending = []
        pendingBytes = 0
      } else {
        take(chunk.subarray(start, nl))
      }
      start = nl + 1
      nl = chunk.indexOf(LF, start)
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start))
      pendingBytes += chunk.length - start
    }
  }
  if (pendingBytes > 0) take(Buffer.concat(pending, pendingBytes))
  return tally
}

/**
 * (b) The Agent SDK's reader, as in `sdk.mjs`:
 * `for await (const line of createInterface({ input })) if (line.trim()) { try { yield JSON.parse(line) } catch { log } }`.
 * `onMessage` stands for the SDK's consumer (a validation, a timestamp).
 */
export const sdkReadline = async (input: Readable, onMessage?: (message: unknown) => boolean): Promise<Tally> => {
  const tally: Tally = { messages: 0, rejected: 0 }
  const rl = readline.createInterface({ input })
  try {
    for await (const line of rl) {
      if (line.trim()) {
        let message: unknown
        try {
          message = JSON.parse(line)
        } catch {
          tally.rejected++
          continue
        }
        if (onMessage === undefined || onMessage(message)) tally.messages++
        else tally.rejected++
      }
    }
  } finally {
    rl.close()
  }
  return tally
}
