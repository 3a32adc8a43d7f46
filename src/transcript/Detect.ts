/**
 * Tells a session transcript from stream-json by its first lines: stream-json messages carry `session_id`,
 * transcript entries `sessionId`, `parentUuid` or `leafUuid` (a summary line), or a type only transcripts
 * have.
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

/**
 * The format of a text's first line that is a JSON object with a `type`; stream-json when none tells.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (text: string): Format => {
  for (const line of text.split("\n")) {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue
    const o = value as { readonly [k: string]: unknown }
    if (typeof o.type !== "string") continue
    if ("session_id" in o) return "stream-json"
    if ("sessionId" in o || "parentUuid" in o || "leafUuid" in o || transcriptOnly.has(o.type)) return "transcript"
  }
  return "stream-json"
}
