/**
 * A session's metadata, folded from its entries into a `Summary`: from the first and last 64 KiB of a
 * transcript file, as the SDK's `listSessions` reads it (the title entries and the last prompt sit at the end,
 * the first prompt, cwd and creation time at the start; the middle is never read), or batch by batch as a
 * store appends them.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Transcript from "../../transcript/Transcript.ts"

/**
 * An archive mark as the SDK keeps it beside a transcript (`<session id>/archived.json`): whether the
 * session is archived, and since when (ms since the epoch).
 *
 * @internal
 */
export interface ArchiveMark {
  readonly archived: boolean
  readonly at: number
}

/**
 * An archive mark's JSON text as a mark; `undefined` for one that is not (as the SDK, which ignores it).
 *
 * @internal
 */
export const parseMark = (text: string): ArchiveMark | undefined => {
  try {
    const value = JSON.parse(text) as { readonly archived?: unknown; readonly at?: unknown }
    const at = typeof value.at === "string" ? Date.parse(value.at) : Number.NaN
    return typeof value.archived === "boolean" && !Number.isNaN(at) ? { archived: value.archived, at } : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a session is archived, from its mark and its entries (all, or a file's head and tail windows, as
 * the SDK reads them): a person's prompt after the mark unarchives it.
 *
 * @internal
 */
export const archivedBy = (mark: ArchiveMark | undefined, entries: Iterable<Transcript.Entry>): boolean | undefined => {
  if (mark === undefined || !mark.archived) return mark?.archived
  for (const entry of entries) {
    const at = Date.parse(stringField(entry, "timestamp") ?? "")
    if (promptText(entry) !== undefined && at > mark.at) return false
  }
  return true
}

/**
 * The entries of a file's head and tail windows (the same text when it fits one).
 *
 * @internal
 */
export const windowEntries = (head: string, tail: string, whole: boolean): Array<Transcript.Entry> =>
  whole ? entriesOf(head, "none") : [...entriesOf(head, "head"), ...entriesOf(tail, "tail")]

/** The entries on the whole lines of a window: a head loses its last (cut) line, a tail its first. */
export const entriesOf = (text: string, cut: "head" | "tail" | "none"): Array<Transcript.Entry> => {
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

export const nonEmpty = (s: string | undefined) => s === undefined || s === "" ? undefined : s

/**
 * What listing a session needs of its entries, folded one batch at a time: the first prompt, cwd, creation
 * time and sidechain flag freeze at their first appearance; titles, tag, last prompt, summary and git branch
 * follow the latest. JSON-safe (fields absent, never `undefined`), so a store keeps it as it is.
 *
 * @internal
 */
export interface Summary {
  /** Whether the first user or assistant entry is a sidechain's (a subagent transcript). */
  readonly isSidechain?: boolean
  /** The first entry's timestamp, as written. */
  readonly createdAt?: string
  readonly cwd?: string
  /** Where a `relocated` entry says the session moved to: it wins over `cwd`. */
  readonly relocatedCwd?: string
  readonly firstPrompt?: string
  readonly customTitle?: string
  readonly aiTitle?: string
  readonly lastPrompt?: string
  readonly summaryHint?: string
  readonly gitBranch?: string
  readonly tag?: string
}

/** @internal */
export const empty: Summary = {}

type Fields = { -readonly [K in keyof Summary]: Summary[K] }

/**
 * `entries` folded into `summary`. A file read as two windows folds its head as `"head"` (no last prompt,
 * summary nor relocation: those are read at the end; the first git branch only) then its tail as `"tail"` (nothing set once);
 * everything else, a whole transcript or a batch appended to a store, folds as `"whole"`.
 *
 * @internal
 */
export const fold = (
  summary: Summary,
  entries: ReadonlyArray<Transcript.Entry>,
  part: "whole" | "head" | "tail"
): Summary => {
  const out: Fields = { ...summary }
  const once = <K extends keyof Fields>(key: K, value: Fields[K] | undefined) => {
    if (value !== undefined && out[key] === undefined) out[key] = value
  }
  const latest = <K extends keyof Fields>(key: K, value: Fields[K] | undefined) => {
    if (value !== undefined) out[key] = value
  }
  for (const entry of entries) {
    if (part !== "tail") {
      if (Transcript.isConversation(entry)) once("isSidechain", entry.isSidechain === true)
      once("createdAt", stringField(entry, "timestamp"))
      once("cwd", stringField(entry, "cwd"))
      once("firstPrompt", promptText(entry))
    }
    if (part !== "head") {
      latest("lastPrompt", entry._tag === "LastPromptEntry" ? entry.lastPrompt : undefined)
      latest("summaryHint", entry._tag === "SummaryEntry" ? entry.summary : undefined)
      if (entry._tag === "RelocatedEntry") latest("relocatedCwd", nonEmpty(entry.relocatedCwd))
    }
    const gitBranch = stringField(entry, "gitBranch")
    if (part === "head") once("gitBranch", gitBranch)
    else latest("gitBranch", gitBranch)
    latest("customTitle", entry._tag === "CustomTitleEntry" ? entry.customTitle : undefined)
    latest("aiTitle", entry._tag === "AiTitleEntry" ? entry.aiTitle : undefined)
    latest("tag", entry._tag === "TagEntry" ? entry.tag : undefined)
  }
  return out
}
