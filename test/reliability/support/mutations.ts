/**
 * Wrong types in every field of every known message: for each line of a recording that decodes to a known
 * message, for each field path (every key and array element, nested), the line with that value replaced by
 * a value of another JSON type.
 */
import { decodeMessage, encodeMessage } from "../../../src/schema/Message.ts"
import * as Result from "effect/Result"

export type Path = ReadonlyArray<string | number>

export interface Mutation {
  /** The 0-based index of the source line in its file. */
  readonly source: number
  readonly path: Path
  readonly wrong: unknown
  readonly text: string
}

/** A value of another JSON type than `value`. */
export const wrongTypeOf = (value: unknown): unknown =>
  typeof value === "string"
    ? 12345
    : typeof value === "number"
    ? "12345"
    : typeof value === "boolean"
    ? 0
    : value === null
    ? 12345
    : Array.isArray(value)
    ? { not: "an array" }
    : ["not", "an object"]

const pathsOf = (value: unknown, prefix: Path = []): Array<Path> => {
  if (value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([key, child]) => {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key]
    return [path, ...pathsOf(child, path)]
  })
}

export const getAt = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((at, key) => at !== null && typeof at === "object" ? (at as Record<string | number, unknown>)[key] : undefined, value)

const setAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [key, ...rest] = path
  const copy: Record<string | number, unknown> = Array.isArray(value) ? [...value] as never : { ...(value as object) }
  copy[key] = setAt((value as Record<string | number, unknown>)[key], rest, replacement)
  return copy
}

/** Whether a line decodes to a known (not `UnknownMessage`) message. */
const isKnown = (json: unknown): boolean => {
  const decoded = decodeMessage(json)
  return Result.isSuccess(decoded) && decoded.success._tag !== "UnknownMessage"
}

/** Every mutation of every known message among `lines`. */
export const mutations = (lines: ReadonlyArray<string>): Array<Mutation> =>
  lines.flatMap((line, source) => {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return []
    }
    if (!isKnown(json)) return []
    return pathsOf(json).map((path) => {
      const wrong = wrongTypeOf(getAt(json, path))
      return { source, path, wrong, text: JSON.stringify(setAt(json, path, wrong)) }
    })
  })

/** The path as the schema's issues print it: `["message"]["content"][0]`. */
export const formatPath = (path: Path): string => path.map((key) => `[${JSON.stringify(key)}]`).join("")

/** The paths a `SchemaMismatch` detail names (`at [...]` lines). */
export const issuePaths = (detail: string): Array<string> => Array.from(detail.matchAll(/at (\[.*\])$/gm), (m) => m[1]!)

/**
 * A mutated line that decoded anyway must have changed nothing the schema checks: the path is not part of
 * the message's encoding (an extra field, ignored) or the wrong value is kept as written (an opaque value).
 */
export const keptOpaque = (message: Parameters<typeof encodeMessage>[0], mutation: Mutation): boolean => {
  const encoded = getAt(encodeMessage(message), mutation.path)
  return encoded === undefined || JSON.stringify(encoded) === JSON.stringify(mutation.wrong)
}
