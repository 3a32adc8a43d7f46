/**
 * A stored session summary read back: the JSON text a store kept, checked to be a summary before it is used,
 * so a corrupt row or file is named instead of listed as garbage or thrown as a defect.
 *
 * @internal
 */
import type * as Info from "./info.ts"

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

/** Why `value` is not a summary (`Info.Summary` and its `bytes`); `undefined` when it is one. */
export const problem = (value: unknown): string | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "it is not a JSON object"
  const fields = value as { readonly [k: string]: unknown }
  if (typeof fields.bytes !== "number" || !Number.isFinite(fields.bytes)) return "its bytes is not a number"
  if (fields.isSidechain !== undefined && typeof fields.isSidechain !== "boolean") return "its isSidechain is not a boolean"
  const bad = textFields.find((name) => fields[name] !== undefined && typeof fields[name] !== "string")
  return bad === undefined ? undefined : `its ${bad} is not a string`
}

/** The summary in `text`, or why it is none. */
export const parse = (text: string): { readonly data: Info.Summary & { readonly bytes: number } } | { readonly problem: string } => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { problem: `it is not JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  const why = problem(value)
  return why === undefined ? { data: value as Info.Summary & { readonly bytes: number } } : { problem: why }
}
