/**
 * A session's metadata from the first and last 64 KiB of its transcript, as the SDK's `listSessions` reads
 * it: the title entries and the last prompt sit at the end, the first prompt, cwd and creation time at the
 * start; the middle is never read.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Transcript from "../../schema/Transcript.ts"

/** @internal */
export const windowBytes = 64 * 1024

/**
 * What `listSessions` and `getSessionInfo` return for one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionInfo {
  readonly sessionId: string
  /** The project directory's key (`projects/<projectKey>/<sessionId>.jsonl`). */
  readonly projectKey: string
  /** Display title: the custom title, the model's title, the last prompt, the summary, or the first prompt. */
  readonly summary: string
  /** Last modified time in milliseconds since the epoch. */
  readonly lastModified: number
  /** Size of the transcript in bytes. */
  readonly fileSize: number
  readonly customTitle?: string | undefined
  readonly firstPrompt?: string | undefined
  readonly gitBranch?: string | undefined
  readonly cwd?: string | undefined
  readonly tag?: string | undefined
  /** The first entry's timestamp, in milliseconds since the epoch. */
  readonly createdAt?: number | undefined
}

// The whole lines of a window: a head loses its last (cut) line, a tail its first.
const entriesOf = (text: string, cut: "head" | "tail" | "none"): Array<Transcript.Entry> => {
  const lines = text.split("\n")
  if (cut === "head") lines.pop()
  if (cut === "tail") lines.shift()
  const out: Array<Transcript.Entry> = []
  for (const line of lines) {
    if (line.trim() === "") continue
    try {
      const result = Transcript.decodeEntry(JSON.parse(line))
      if (Result.isSuccess(result)) out.push(result.success)
    } catch {
      // A bad line does not hide the session; reading its messages reports it.
    }
  }
  return out
}

const last = <A>(entries: ReadonlyArray<Transcript.Entry>, pick: (entry: Transcript.Entry) => A | undefined) => {
  for (let i = entries.length - 1; i >= 0; i--) {
    const value = pick(entries[i]!)
    if (value !== undefined) return value
  }
  return undefined
}

const first = <A>(entries: ReadonlyArray<Transcript.Entry>, pick: (entry: Transcript.Entry) => A | undefined) => {
  for (const entry of entries) {
    const value = pick(entry)
    if (value !== undefined) return value
  }
  return undefined
}

const promptLength = 200

/** The text of a user entry that is a person's prompt (not a tool result, a meta note or a compaction summary). */
export const promptText = (entry: Transcript.Entry): string | undefined => {
  if (entry._tag !== "UserEntry" || entry.isMeta === true || entry.isCompactSummary === true) return undefined
  if (entry.toolResults.length > 0) return undefined
  const text = entry.text.replace(/\s+/g, " ").trim()
  if (text === "" || text.startsWith("<command-") || text.startsWith("<local-command")) return undefined
  return text.length <= promptLength ? text : `${text.slice(0, promptLength)}…`
}

// Any entry's string field, typed or not (the SDK reads the first occurrence in the text).
const stringField = (entry: Transcript.Entry, name: string): string | undefined => {
  const source = (entry._tag === "UnknownEntry" ? entry.raw : entry) as unknown as { readonly [k: string]: unknown }
  const value = source[name]
  return typeof value === "string" && value !== "" ? value : undefined
}

const nonEmpty = (s: string | undefined) => s === undefined || s === "" ? undefined : s

/**
 * The info of a session from its head and tail windows (the same text when the file fits one window);
 * `undefined` for a sidechain transcript or one with nothing to show.
 *
 * @internal
 */
export const fromWindows = (input: {
  readonly sessionId: string
  readonly projectKey: string
  readonly head: string
  readonly tail: string
  readonly whole: boolean
  readonly lastModified: number
  readonly fileSize: number
}): SessionInfo | undefined => {
  const head = entriesOf(input.head, input.whole ? "none" : "head")
  return fromEntries({ ...input, head, tail: input.whole ? head : entriesOf(input.tail, "tail") })
}

/**
 * The info of a session from its first and last entries (all of them, for a session held whole).
 *
 * @internal
 */
export const fromEntries = (input: {
  readonly sessionId: string
  readonly projectKey: string
  readonly head: ReadonlyArray<Transcript.Entry>
  readonly tail: ReadonlyArray<Transcript.Entry>
  readonly lastModified: number
  readonly fileSize: number
}): SessionInfo | undefined => {
  const { head, tail } = input
  const firstMessage = first(head, (e) => Transcript.isConversation(e) ? e : undefined)
  if (firstMessage?.isSidechain === true) return undefined
  const titled = (pick: (e: Transcript.Entry) => string | undefined) => nonEmpty(last(tail, pick) ?? last(head, pick))
  const customTitle = titled((e) => e._tag === "CustomTitleEntry" ? e.customTitle : undefined)
  const aiTitle = titled((e) => e._tag === "AiTitleEntry" ? e.aiTitle : undefined)
  const firstPrompt = first(head, promptText)
  const summary = customTitle ?? aiTitle ??
    nonEmpty(last(tail, (e) => e._tag === "LastPromptEntry" ? e.lastPrompt : undefined)) ??
    nonEmpty(last(tail, (e) => e._tag === "SummaryEntry" ? e.summary : undefined)) ?? firstPrompt
  if (summary === undefined) return undefined
  const field = (name: "gitBranch" | "cwd" | "timestamp") => (e: Transcript.Entry) => stringField(e, name)
  const created = first(head, field("timestamp"))
  const createdAt = created === undefined ? undefined : Date.parse(created)
  return {
    sessionId: input.sessionId,
    projectKey: input.projectKey,
    summary,
    lastModified: input.lastModified,
    fileSize: input.fileSize,
    customTitle,
    firstPrompt,
    gitBranch: last(tail, field("gitBranch")) ?? first(head, field("gitBranch")),
    cwd: first(head, field("cwd")),
    tag: titled((e) => e._tag === "TagEntry" ? e.tag : undefined),
    createdAt: createdAt === undefined || Number.isNaN(createdAt) ? undefined : createdAt
  }
}
