/**
 * The tool-call index of a store: one row per tool call of a session's main transcript (its tool, what it did,
 * how it ended), kept by `append`, and what of a filter it answers. The index narrows a query to the sessions
 * that can hold a selected item; those sessions are then read and filtered in memory, so the index only has
 * to be a superset: a session it leaves out must have no item the filter selects.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Ast from "../../filter/Ast.ts"
import * as ContentBlock from "../../schema/ContentBlock.ts"
import * as Permission from "../../schema/Permission.ts"
import * as TranscriptMessages from "../../transcript/Messages.ts"
import * as Transcript from "../../transcript/Transcript.ts"
import type * as SessionStore from "../SessionStore.ts"

/** How a call ended, as far as its rows tell: worst first wins (`denied` over `error` over `ok`). */
export type Outcome = "ok" | "error" | "denied"

/** A call by its tool use id; a field is `null` until an entry tells it. */
export interface Row {
  readonly toolUseId: string
  readonly tool: string | null
  readonly outcome: Outcome | null
  readonly command: string | null
  readonly path: string | null
  readonly url: string | null
  /** The entry of the call (or of its result, when the call is not stored). */
  readonly uuid: string | null
  /** The entry's timestamp (ms), else the append's time. */
  readonly at: number
}

const rank = (outcome: Outcome | null): number => outcome === null ? 0 : outcome === "ok" ? 1 : outcome === "error" ? 2 : 3

/** The worse of two outcomes: a merge never hides an error or a refusal. */
export const worse = (a: Outcome | null, b: Outcome | null): Outcome | null => rank(a) >= rank(b) ? a : b

/** Two rows of one call as one: the first value of each field, the worse outcome. */
export const merge = (a: Row, b: Row): Row => ({
  toolUseId: a.toolUseId,
  tool: a.tool ?? b.tool,
  outcome: worse(a.outcome, b.outcome),
  command: a.command ?? b.command,
  path: a.path ?? b.path,
  url: a.url ?? b.url,
  uuid: a.uuid ?? b.uuid,
  at: Math.min(a.at, b.at)
})

const stringField = (input: unknown, field: string): string | null => {
  const value = typeof input === "object" && input !== null && Object.hasOwn(input, field)
    ? (input as Record<string, unknown>)[field]
    : undefined
  return typeof value === "string" ? value : null
}

// The strings the input atoms read (as the filter's evaluation does): Bash's command, a file tool's path,
// WebFetch's URL.
const inputOf = (name: string, input: unknown) => ({
  command: name === "Bash" ? stringField(input, "command") : null,
  path: Object.hasOwn(Ast.pathFields, name) ? stringField(input, Ast.pathFields[name as keyof typeof Ast.pathFields]) : null,
  url: name === "WebFetch" ? stringField(input, "url") : null
})

// Whether an entry can hold a call or a result (a block of either type in its message's content): only those
// are decoded, so an append of text and bookkeeping lines costs the index nothing.
const hasToolBlock = (entry: SessionStore.Entry): boolean => {
  const message = entry.message
  const content = typeof message === "object" && message !== null ? (message as { readonly content?: unknown }).content : undefined
  return Array.isArray(content) &&
    content.some((block) => typeof block === "object" && block !== null && (block.type === "tool_use" || block.type === "tool_result"))
}

/** Adds a row to rows by tool use id, merged with the one held for its call. */
export const addTo = (rows: Map<string, Row>, row: Row): void => {
  const held = rows.get(row.toolUseId)
  rows.set(row.toolUseId, held === undefined ? row : merge(held, row))
}

/**
 * The rows of entries appended to a main transcript, one per tool use id (merged within the batch). Entries
 * are read as the queries read them: decoded as transcript entries, then as messages.
 */
export const rowsOf = (entries: ReadonlyArray<SessionStore.Entry>, writtenAt: number): Array<Row> => {
  const rows = new Map<string, Row>()
  for (const entry of entries) {
    if (!hasToolBlock(entry)) continue
    const decoded = Transcript.decodeEntry(entry)
    if (Result.isFailure(decoded)) continue
    const message = TranscriptMessages.toMessage(decoded.success)
    if (message?._tag !== "AssistantMessage" && message?._tag !== "UserMessage") continue
    const stamp = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : NaN
    const common = { uuid: typeof entry.uuid === "string" ? entry.uuid : null, at: Number.isNaN(stamp) ? writtenAt : stamp }
    // An API error the CLI reports as an assistant message makes its calls errors, whatever their results.
    const apiError = message._tag === "AssistantMessage" && message.error !== undefined
    for (const block of ContentBlock.blocks(message.message.content)) {
      if (block._tag === "ToolUseBlock") {
        addTo(rows, { ...common, toolUseId: block.id, tool: block.name, outcome: apiError ? "error" : null, ...inputOf(block.name, block.input) })
      } else if (block._tag === "ToolResultBlock") {
        const meta = message._tag === "UserMessage" ? Permission.toolResultMeta(message, block.tool_use_id) : undefined
        const outcome: Outcome = Permission.isPermissionDenied(block, meta) ? "denied" : block.isError ? "error" : "ok"
        addTo(rows, { ...common, toolUseId: block.tool_use_id, tool: null, outcome, command: null, path: null, url: null })
      }
    }
  }
  return [...rows.values()]
}

const always: SessionStore.ToolCallQuery = { _tag: "And", queries: [] }
const never: SessionStore.ToolCallQuery = { _tag: "Or", queries: [] }

const junction = (tag: "And" | "Or", queries: ReadonlyArray<SessionStore.ToolCallQuery>): SessionStore.ToolCallQuery => {
  const flat = queries.flatMap((q) => q._tag === tag ? q.queries : [q])
  // An empty `or` in an `and` (an empty `and` in an `or`) decides it.
  if (flat.some((q) => q._tag !== tag && (q._tag === "And" || q._tag === "Or") && q.queries.length === 0)) {
    return tag === "And" ? never : always
  }
  return flat.length === 1 ? flat[0]! : { _tag: tag, queries: flat }
}

// What an item the filter selects says of the index: `tool` when every such item is a tool call or result,
// `query` what the row of its call then satisfies.
interface Need {
  readonly tool: boolean
  readonly query: SessionStore.ToolCallQuery
}

const need = (ast: Ast.Ast): Need => {
  switch (ast._tag) {
    case "ToolUse":
    case "ToolResult":
      return { tool: true, query: ast.name === undefined ? always : { _tag: "Tool", pattern: ast.name } }
    case "Input":
      return { tool: true, query: ast.on === "field" ? always : { _tag: "Input", on: ast.on, pattern: ast.pattern } }
    case "Typed":
      return { tool: true, query: always }
    case "None":
      return { tool: true, query: never }
    case "Error":
      return { tool: false, query: { _tag: "Outcome", outcome: "error" } }
    case "Denied":
      return { tool: false, query: { _tag: "Outcome", outcome: "denied" } }
    // Items that are never tool calls or results.
    case "Text":
    case "Thinking":
    case "System":
    case "Delta":
      return { tool: false, query: never }
    case "And":
    case "Or": {
      const needs = ast.filters.map(need)
      return ast._tag === "And"
        ? { tool: needs.some((n) => n.tool), query: junction("And", needs.map((n) => n.query)) }
        : { tool: needs.every((n) => n.tool), query: junction("Or", needs.map((n) => n.query)) }
    }
    default:
      // A negation, a code predicate, the envelope atoms: any item, any row.
      return { tool: false, query: always }
  }
}

/**
 * What the index can answer of a filter: a query every session with a selected item has a row for, or
 * `undefined` when the filter can select items that are not tool calls (every session is then read).
 */
export const queryOf = (ast: Ast.Ast): SessionStore.ToolCallQuery | undefined => {
  const { query, tool } = need(ast)
  return tool ? query : undefined
}

/** Whether a row satisfies a query, exactly as the filter's atoms match (the memory store's index). */
export const matches = (query: SessionStore.ToolCallQuery, row: Row): boolean => {
  switch (query._tag) {
    case "Tool":
      return row.tool !== null && Ast.matchName(query.pattern, row.tool)
    case "Outcome":
      return query.outcome === "denied" ? row.outcome === "denied" : row.outcome === "error" || row.outcome === "denied"
    case "Input": {
      const value = row[query.on]
      return value !== null && (query.on === "path" ? Ast.matchPath(query.pattern, value) : Ast.matchName(query.pattern, value))
    }
    case "And":
      return query.queries.every((q) => matches(q, row))
    case "Or":
      return query.queries.some((q) => matches(q, row))
  }
}

const globSpecial = /[[*?]/g

/**
 * A name glob as an SQLite `GLOB` pattern, the same matches (`*` any run, `?` one character; `[` is literal).
 * A path glob becomes a superset: every `*` may cross `/`, and a relative pattern may end any path.
 */
export const toGlob = (pattern: string, kind: "name" | "path"): string => {
  const literal = (c: string) => c.replace(globSpecial, "[$&]")
  if (kind === "name") return Array.from(pattern, (c) => c === "*" || c === "?" ? c : literal(c)).join("")
  return (pattern.startsWith("/") ? "" : "*") + pathPattern(pattern, "*", "?", literal)
}

/** The same as {@link toGlob}, as a `LIKE` pattern with `\` as its escape (PostgreSQL's `LIKE` keeps case). */
export const toLike = (pattern: string, kind: "name" | "path"): string => {
  const literal = (c: string) => c.replace(/[%_\\]/g, "\\$&")
  if (kind === "name") return Array.from(pattern, (c) => c === "*" ? "%" : c === "?" ? "_" : literal(c)).join("")
  return (pattern.startsWith("/") ? "" : "%") + pathPattern(pattern, "%", "_", literal)
}

// A path glob with its wildcards replaced: `**/` as a whole segment may be nothing at all (`a/**/b` is also
// `a/b`), any other run of `*` any run.
const pathPattern = (pattern: string, any: string, one: string, literal: (c: string) => string): string => {
  let out = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "*") {
      const start = i
      while (pattern[i + 1] === "*") i++
      const wholeSegment = i > start && (start === 0 || pattern[start - 1] === "/") && pattern[i + 1] === "/"
      if (wholeSegment) i++
      out += any
    } else out += c === "?" ? one : literal(c)
  }
  return out
}
