/**
 * Tells a session transcript from stream-json by its first lines: stream-json messages carry `session_id`,
 * transcript entries `sessionId`, `parentUuid` or `leafUuid` (a summary line), or a type only transcripts
 * have. A line cut by the end of the text (a first line longer than the bytes read) tells by the keys it
 * starts with, as far as they are plain values.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export type Format = "stream-json" | "transcript"

const transcriptOnly = new Set([
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "custom-title",
  "ai-title",
  "attachment"
])

// The keys a value says its format by: a decision, or `undefined` when none tells.
const formatOfKeys = (has: (key: string) => boolean, type: unknown): Format | undefined => {
  if (has("session_id")) return "stream-json"
  if (has("sessionId") || has("parentUuid") || has("leafUuid") || (typeof type === "string" && transcriptOnly.has(type))) {
    return "transcript"
  }
  return undefined
}

const scalar = /\s*"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)\s*,/y

// The leading keys of a cut JSON object line, up to its first key whose value is not a plain one.
const leadingKeys = (line: string): Map<string, unknown> => {
  const keys = new Map<string, unknown>()
  const open = /^\s*\{/.exec(line)
  if (open === null) return keys
  scalar.lastIndex = open[0].length
  try {
    for (let match = scalar.exec(line); match !== null; match = scalar.exec(line)) {
      keys.set(JSON.parse(`"${match[1]}"`), JSON.parse(match[2]!))
    }
  } catch {
    // A value that only looks plain (`1-2`): the keys before it are all that tell.
  }
  return keys
}

/**
 * The format of a text's first line that is a JSON object with a `type`; stream-json when none tells.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (text: string): Format => {
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      // Only the last piece can be cut by the end of the text.
      if (i === lines.length - 1) {
        const keys = leadingKeys(line)
        return formatOfKeys((key) => keys.has(key), keys.get("type")) ?? "stream-json"
      }
      continue
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue
    const o = value as { readonly [k: string]: unknown }
    if (typeof o.type !== "string") continue
    const format = formatOfKeys((key) => key in o, o.type)
    if (format !== undefined) return format
  }
  return "stream-json"
}
