/**
 * Replaces the sandbox's random temp directory in recorded stream-json, also where the CLI split it across
 * the `input_json_delta` (or text) fragments of a streamed content block: the fragments of each block are
 * joined, sanitized, and cut again at their old boundaries (a fragment that held only part of the name
 * holds the replacement, or nothing).
 *
 *   node scripts/sanitize-fixtures.ts [file ...]   (default: every fixtures/recorded/*.partial.jsonl)
 *
 * With no sandbox root at hand (fixtures already written), the names the sandbox makes
 * (`claude-sandbox-XXXXXX` under /tmp) are found by pattern.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** What replaces the sandbox root, and its slug form (the CLI's per-project folder names). */
export const placeholder = "/tmp/claude-sandbox"
export const slugPlaceholder = "-tmp-claude-sandbox"

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The replacements for a known sandbox root: the path and its slug. */
export const forRoot = (root: string): ReadonlyArray<readonly [RegExp, string]> => [
  [new RegExp(escape(root), "g"), placeholder],
  [new RegExp(escape(root.replace(/[^a-zA-Z0-9]/g, "-")), "g"), slugPlaceholder]
]

/** The replacements by pattern: any sandbox made by `ClaudeSandbox` under /tmp. */
export const byPattern: ReadonlyArray<readonly [RegExp, string]> = [
  [/\/tmp\/claude-sandbox-[A-Za-z0-9]{6}/g, placeholder],
  [/-tmp-claude-sandbox-[A-Za-z0-9]{6}/g, slugPlaceholder]
]

const apply = (text: string, rules: ReadonlyArray<readonly [RegExp, string]>) =>
  rules.reduce((s, [from, to]) => s.replace(from, to), text)

// Fragments joined, sanitized, and cut again: a match goes to the fragment where it starts.
const sanitizeFragments = (fragments: ReadonlyArray<string>, rules: ReadonlyArray<readonly [RegExp, string]>): Array<string> => {
  // Each UTF-16 unit of the joined text, with the fragment it came from.
  let units = fragments.flatMap((f, i) => f.split("").map((unit) => ({ unit, from: i })))
  for (const [from, to] of rules) {
    const joined = units.map((u) => u.unit).join("")
    for (const match of [...joined.matchAll(new RegExp(from.source, "g"))].reverse()) {
      const at = match.index!
      units = [...units.slice(0, at), { unit: to, from: units[at]!.from }, ...units.slice(at + match[0].length)]
    }
  }
  return fragments.map((_, i) => units.filter((u) => u.from === i).map((u) => u.unit).join(""))
}

/**
 * Sanitizes recorded stream-json text: every line, then the fragments of every streamed content block
 * joined (see the module doc). Lines are rewritten only where a fragment changed.
 */
export const sanitize = (text: string, rules: ReadonlyArray<readonly [RegExp, string]>): string => {
  const lines = apply(text, rules).split("\n")
  // Per content block (parent, message number, index): the lines and fragments of its deltas.
  const blocks = new Map<string, Array<{ readonly line: number; readonly field: string; readonly value: string }>>()
  const messages = new Map<string, number>()
  lines.forEach((line, i) => {
    if (!line.startsWith("{\"type\":\"stream_event\"")) return
    const m = JSON.parse(line)
    const parent = String(m.parent_tool_use_id ?? null)
    if (m.event?.type === "message_start") messages.set(parent, (messages.get(parent) ?? 0) + 1)
    if (m.event?.type !== "content_block_delta") return
    const delta = m.event.delta
    const field = ["partial_json", "text", "thinking"].find((k) => typeof delta[k] === "string")
    if (field === undefined) return
    const key = `${parent}/${messages.get(parent) ?? 0}/${m.event.index}`
    blocks.set(key, [...(blocks.get(key) ?? []), { line: i, field, value: delta[field] }])
  })
  for (const parts of blocks.values()) {
    const sanitized = sanitizeFragments(parts.map((p) => p.value), rules)
    parts.forEach((part, i) => {
      if (sanitized[i] === part.value) return
      const before = `"${part.field}":${JSON.stringify(part.value)}`
      if (!lines[part.line]!.includes(before)) throw new Error(`line ${part.line + 1}: fragment not found as written`)
      lines[part.line] = lines[part.line]!.replace(before, () => `"${part.field}":${JSON.stringify(sanitized[i])}`)
    })
  }
  return lines.join("\n")
}

if (import.meta.main) {
  const dir = path.resolve(import.meta.dirname, "..", "fixtures", "recorded")
  const files = process.argv.length > 2
    ? process.argv.slice(2)
    : fs.readdirSync(dir).filter((f) => f.endsWith(".partial.jsonl")).map((f) => path.join(dir, f))
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8")
    const clean = sanitize(text, byPattern)
    if (clean !== text) fs.writeFileSync(file, clean)
    console.log(`${path.basename(file)}: ${clean === text ? "unchanged" : "sanitized"}`)
  }
}
