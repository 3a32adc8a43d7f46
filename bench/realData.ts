/**
 * Real-shaped inputs: the stream-json captures of the shared corpus
 * (../shared/corpus/public), fixtures/corpus and fixtures/recorded, one
 * after the other, replicated to a size with fresh ids in every copy (session
 * ids, uuids, message, request and tool use ids), so that no two copies are
 * alike and a reader cannot profit from repeated strings. Captures with a
 * `stream_event` line make the input with partial messages, the others the
 * input without. Lines that are not JSON objects are left out: every variant
 * must read every line of its input.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** The folders whose `.jsonl` files are read, in this order (identical files are read once). */
export const sourceDirs: ReadonlyArray<string> = [
  path.join(import.meta.dirname, "..", "..", "shared", "corpus", "public"),
  path.join(import.meta.dirname, "..", "fixtures", "corpus"),
  path.join(import.meta.dirname, "..", "fixtures", "recorded")
]

/** The lines of one capture that are JSON objects, and whether it has partial messages. */
export interface Capture {
  readonly file: string
  readonly lines: ReadonlyArray<string>
  readonly partial: boolean
}

const isObjectLine = (line: string): { readonly type: unknown } | undefined => {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value as { readonly type: unknown } : undefined
  } catch {
    return undefined
  }
}

/** Every capture of `dirs` (a missing folder is skipped), identical files once. */
export const captures = (dirs: ReadonlyArray<string> = sourceDirs): Array<Capture> => {
  const seen = new Set<string>()
  const out: Array<Capture> = []
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
      const text = fs.readFileSync(path.join(dir, name), "utf8")
      if (seen.has(text)) continue
      seen.add(text)
      const lines: Array<string> = []
      let partial = false
      for (const raw of text.split("\n")) {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
        const value = isObjectLine(line)
        if (value === undefined) continue
        if (value.type === "stream_event") partial = true
        lines.push(line)
      }
      if (lines.length > 0) out.push({ file: path.join(dir, name), lines, partial })
    }
  }
  return out
}

const uuid = /\b([0-9a-f]{8})(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g
const prefixed = /\b((?:msg|toolu|srvtoolu|req)_[A-Za-z0-9]+)/g

/**
 * `text` with the ids of copy number `copy` (0 leaves them as they are): a
 * uuid's first group is XORed with the copy number (distinct uuids stay
 * distinct, and the shape stays a uuid), and `msg_`, `toolu_`, `srvtoolu_`
 * and `req_` ids get the copy number appended. A tool result's `tool_use_id`
 * changes as its call's `id` does, so the pairs still match.
 */
export const freshIds = (text: string, copy: number): string =>
  copy === 0 ? text : text
    .replace(uuid, (_, first: string, rest: string) => ((parseInt(first, 16) ^ copy) >>> 0).toString(16).padStart(8, "0") + rest)
    .replace(prefixed, (id: string) => `${id}c${copy.toString(36)}`)

/** Size and make-up of a written input. */
export interface Written {
  readonly bytes: number
  readonly lines: number
  /** Share of bytes that are not ASCII (the text path's cost depends on it). */
  readonly nonAscii: number
  readonly copies: number
  readonly captures: number
}

/** Writes the captures with (or without) partial messages, copied with fresh ids, until `file` holds `bytes`. */
export const write = (file: string, options: { readonly bytes: number; readonly partial: boolean }): Written => {
  const chosen = captures().filter((c) => c.partial === options.partial)
  if (chosen.length === 0) throw new Error(`no captures ${options.partial ? "with" : "without"} partial messages in ${sourceDirs.join(", ")}`)
  const text = chosen.map((c) => c.lines.join("\n") + "\n").join("")
  const lineCount = chosen.reduce((n, c) => n + c.lines.length, 0)
  const fd = fs.openSync(file, "w")
  let bytes = 0
  let copies = 0
  // Fresh ids are ASCII: every copy has the non-ASCII bytes of the first.
  const original = Buffer.from(text, "utf8")
  let nonAscii = 0
  for (let i = 0; i < original.length; i++) if (original[i]! >= 0x80) nonAscii++
  try {
    while (bytes < options.bytes) {
      const chunk = Buffer.from(freshIds(text, copies), "utf8")
      fs.writeSync(fd, chunk)
      bytes += chunk.length
      copies++
    }
  } finally {
    fs.closeSync(fd)
  }
  return { bytes, lines: lineCount * copies, nonAscii: nonAscii / original.length, copies, captures: chosen.length }
}

/** Line sizes of the cost curve: 1 KB to 64 MiB. */
export const curveLineBytes: ReadonlyArray<number> = [1024, 16 * 1024, 256 * 1024, 4 * 1024 * 1024, 64 * 1024 * 1024]

/**
 * Writes lines of `lineBytes` each (the first `assistant` text message of the captures, its text replaced
 * by ASCII of the length that makes the line that size) until `file` holds at least `totalBytes`.
 */
export const writeCurve = (file: string, lineBytes: number, totalBytes: number): { readonly bytes: number; readonly lines: number } => {
  const template = captures().flatMap((c) => c.lines).map((l) => JSON.parse(l) as Record<string, any>)
    .find((m) => m.type === "assistant" && m.message?.content?.[0]?.type === "text")
  if (template === undefined) throw new Error("no assistant text message in the captures")
  const shell = JSON.stringify({ ...template, message: { ...template.message, content: [{ type: "text", text: "" }] } })
  const filler = "All work and no play makes Jack a dull boy. "
  const textBytes = Math.max(0, lineBytes - Buffer.byteLength(shell) - 1)
  const text = filler.repeat(Math.ceil(textBytes / filler.length)).slice(0, textBytes)
  const line = shell.replace(`"text":""`, `"text":${JSON.stringify(text)}`) + "\n"
  const count = Math.max(1, Math.ceil(totalBytes / Buffer.byteLength(line)))
  const fd = fs.openSync(file, "w")
  try {
    for (let i = 0; i < count; i++) fs.writeSync(fd, freshIds(line, i))
  } finally {
    fs.closeSync(fd)
  }
  return { bytes: fs.statSync(file).size, lines: count }
}
