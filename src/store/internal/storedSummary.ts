/**
 * A session's summary as a store keeps it: read back from the JSON text a store kept (checked to be a summary before it is used, so a corrupt row or file is named instead of
 * listed as garbage or thrown as a defect), and listed as sessions' infos.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as SessionStore from "../SessionStore.ts"
import * as Listing from "./listing.ts"

/**
 * The sessions of a project in a store, as listing gives them for files (title, first prompt, cwd, branch,
 * times; `fileSize` is the size of the entries as JSON lines), most recent first: from the store's summaries,
 * no entry read.
 */
export const infos = (
  store: SessionStore.Shape,
  projectKey: string
): Effect.Effect<Array<SessionStore.SessionInfo>, SessionStore.SessionStoreError> =>
  Effect.map(store.listSessionSummaries(projectKey), (summaries) =>
    summaries.flatMap((summary) => {
      const info = Listing.toInfo(summary.data, {
        sessionId: summary.sessionId,
        projectKey,
        lastModified: summary.mtime,
        fileSize: summary.data.bytes
      })
      return info === undefined ? [] : [info]
    }).sort((a, b) => b.lastModified - a.lastModified))

/** The summary's fields that hold text. */
const textFields = [
  "createdAt",
  "cwd",
  "relocatedCwd",
  "firstPrompt",
  "customTitle",
  "aiTitle",
  "lastPrompt",
  "summaryHint",
  "gitBranch",
  "tag"
] as const

/** Why `value` is not a summary (`SessionStore.SummaryData`); `undefined` when it is one. */
export const problem = (value: unknown): string | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "it is not a JSON object"
  const fields = value as { readonly [k: string]: unknown }
  if (typeof fields.bytes !== "number" || !Number.isFinite(fields.bytes)) return "its bytes is not a number"
  if (fields.isSidechain !== undefined && typeof fields.isSidechain !== "boolean") return "its isSidechain is not a boolean"
  const bad = textFields.find((name) => fields[name] !== undefined && typeof fields[name] !== "string")
  return bad === undefined ? undefined : `its ${bad} is not a string`
}

/** The summary in `text`, or why it is none. */
export const parse = (text: string): { readonly data: SessionStore.SummaryData } | { readonly problem: string } => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { problem: `it is not JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  const why = problem(value)
  return why === undefined ? { data: value as SessionStore.SummaryData } : { problem: why }
}
