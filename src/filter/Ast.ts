/**
 * The data behind a filter: a tree of plain, immutable nodes, kept as built
 * (operand order is evaluation order). Build trees with the constructors
 * here, print them with `Syntax.describeAst`, and compare them by their
 * {@link normalize}d form.
 *
 * @since 0.1.0
 */
import * as Hash from "effect/Hash"

/**
 * An atom that takes no argument.
 *
 * - `Text`, `Thinking`: text / thinking blocks of assistant messages.
 * - `Error`: error tool results, error results, API retries, decode failures.
 * - `Denied`: tool results the permission system refused.
 * - `Typed`: tool uses whose input fits their tool's input schema (see `ToolInput`).
 * - `Subagent` / `Main`: items of messages with / without a `parent_tool_use_id`.
 * - `All` / `None`: every item / no item.
 *
 * @since 0.1.0
 * @category models
 */
export interface Flag {
  readonly _tag: "Text" | "Thinking" | "Error" | "Denied" | "Typed" | "Subagent" | "Main" | "All" | "None"
}

/**
 * `tool_use` blocks of assistant messages, by tool name or name glob
 * (`*` any run of characters, `?` one character), whatever their input.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolUse {
  readonly _tag: "ToolUse"
  readonly name: string | undefined
}

/**
 * `tool_result` blocks, by the name (or glob) of the tool they answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly _tag: "ToolResult"
  readonly name: string | undefined
}

/**
 * `system` messages, by subtype.
 *
 * @since 0.1.0
 * @category models
 */
export interface System {
  readonly _tag: "System"
  readonly subtype: string | undefined
}

/**
 * Items of messages whose wire `type` is `type`.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageType {
  readonly _tag: "MessageType"
  readonly type: string
}

/**
 * Items of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly _tag: "Session"
  readonly id: string
}

/**
 * Items of the subagent that the `Task`/`Agent` tool use `toolUseId` started.
 *
 * @since 0.1.0
 * @category models
 */
export interface FromTask {
  readonly _tag: "FromTask"
  readonly toolUseId: string
}

/**
 * `stream_event` items (partial messages), optionally of one kind: an event
 * type (`message_start`, `content_block_delta`, ...) or a delta type
 * (`text_delta`, `input_json_delta`, ...; `text` is short for `text_delta`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Delta {
  readonly _tag: "Delta"
  readonly kind: string | undefined
}

/**
 * `tool_use` blocks by what the call does: a string of its input matching a
 * glob. `command` is `Bash`'s command, `url` is `WebFetch`'s URL, `path` the
 * file or directory of a file tool (see {@link pathFields}; matched with
 * {@link matchPath}), `field` the input field `field` of any tool (a dotted
 * name reaches into objects: `input.options.mode`). A call whose input has no
 * such string is not selected.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly _tag: "Input"
  readonly on: "command" | "path" | "url" | "field"
  /** The field name, for `on: "field"`. */
  readonly field: string | undefined
  readonly pattern: string
}

/**
 * The input field that holds the file or directory of each file tool, which
 * `path:GLOB` reads (`Glob`, `Grep` and `LS` name a directory, and `Glob`
 * and `Grep` may leave it out: such a call is not selected).
 *
 * @since 0.1.0
 * @category constants
 */
export const pathFields = {
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "path",
  Grep: "path",
  LS: "path"
} as const

/**
 * A predicate written in code; it has no text form. With `on: "input"` it is
 * called with a tool use's input (and the item), and only sits after the
 * atoms that narrow that input (see `Filter.toolUse`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Where {
  readonly _tag: "Where"
  readonly label: string
  readonly on: "item" | "input"
  readonly predicate: (value: any, item?: any) => boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Not {
  readonly _tag: "Not"
  readonly filter: Ast
}

/**
 * At least two operands, none of them an `And` (constructors flatten).
 *
 * @since 0.1.0
 * @category models
 */
export interface And {
  readonly _tag: "And"
  readonly filters: ReadonlyArray<Ast>
}

/**
 * At least two operands, none of them an `Or` (constructors flatten).
 *
 * @since 0.1.0
 * @category models
 */
export interface Or {
  readonly _tag: "Or"
  readonly filters: ReadonlyArray<Ast>
}

/**
 * @since 0.1.0
 * @category models
 */
export type Ast =
  | Flag
  | ToolUse
  | ToolResult
  | System
  | MessageType
  | Session
  | FromTask
  | Delta
  | Input
  | Where
  | Not
  | And
  | Or

/**
 * @since 0.1.0
 * @category constructors
 */
export const flag = (tag: Flag["_tag"]): Flag => ({ _tag: tag })

/**
 * Negation; the negation of a negation is its operand.
 *
 * @since 0.1.0
 * @category constructors
 */
export const not = (filter: Ast): Ast => filter._tag === "Not" ? filter.filter : { _tag: "Not", filter }

const junction = (tag: "And" | "Or", unit: Flag["_tag"]) => (filters: ReadonlyArray<Ast>): Ast => {
  const flat = filters.flatMap((f) => f._tag === tag ? f.filters : [f])
  if (flat.length === 0) return flag(unit)
  if (flat.length === 1) return flat[0]
  return { _tag: tag, filters: flat }
}

/**
 * Conjunction; nested conjunctions are flattened, one operand is itself, none is `All`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const and: (filters: ReadonlyArray<Ast>) => Ast = junction("And", "All")

/**
 * Disjunction; nested disjunctions are flattened, one operand is itself, none is `None`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const or: (filters: ReadonlyArray<Ast>) => Ast = junction("Or", "None")

// A sort key, equal for equal nodes (whatever order their fields were set in)
// and distinct otherwise; a code predicate by its hash, stable per function.
const keyOf = (ast: Ast): string => {
  switch (ast._tag) {
    case "Not":
      return `!(${keyOf(ast.filter)})`
    case "And":
    case "Or":
      return `${ast._tag}(${ast.filters.map(keyOf).join(",")})`
    case "Where":
      return `Where(${JSON.stringify(ast.label)},${ast.on},${Hash.hash(ast.predicate)})`
    default:
      return JSON.stringify(Object.entries(ast).sort(([a], [b]) => a < b ? -1 : 1))
  }
}

const junctionSet = (tag: "And" | "Or", unit: "All" | "None", zero: "All" | "None", filters: ReadonlyArray<Ast>): Ast => {
  const byKey = new Map<string, Ast>()
  for (const filter of filters) {
    const n = normalize(filter)
    for (const operand of n._tag === tag ? n.filters : [n]) {
      if (operand._tag === zero) return flag(zero)
      if (operand._tag !== unit) byKey.set(keyOf(operand), operand)
    }
  }
  const keys = Array.from(byKey.keys()).sort()
  if (keys.length === 0) return flag(unit)
  if (keys.length === 1) return byKey.get(keys[0])!
  return { _tag: tag, filters: keys.map((k) => byKey.get(k)!) }
}

const normalized = new WeakMap<Ast, Ast>()

/**
 * The canonical form filters compare by: conjunctions and disjunctions
 * flattened, deduplicated and sorted, `all` and `none` absorbed
 * (`x & all` is `x`, `x & none` is `none`, and dually), double negation
 * removed, `!all` is `none` and `!none` is `all`. It selects the same items;
 * evaluation uses the tree as built, so a code predicate still runs after the
 * atoms written before it.
 *
 * Equality of form, not of meaning: `text & !text` is not `none`.
 *
 * @since 0.1.0
 * @category normalization
 */
export const normalize = (ast: Ast): Ast => {
  let n = normalized.get(ast)
  if (n !== undefined) return n
  switch (ast._tag) {
    case "Not": {
      const inner = normalize(ast.filter)
      n = inner._tag === "Not"
        ? inner.filter
        : inner._tag === "All" || inner._tag === "None"
        ? flag(inner._tag === "All" ? "None" : "All")
        : { _tag: "Not", filter: inner }
      break
    }
    case "And":
      n = junctionSet("And", "All", "None", ast.filters)
      break
    case "Or":
      n = junctionSet("Or", "None", "All", ast.filters)
      break
    default:
      n = ast
  }
  normalized.set(ast, n)
  return n
}

/**
 * Whether a tree holds a code predicate, which has no text form.
 *
 * @since 0.1.0
 * @category guards
 */
export const hasWhere = (ast: Ast): boolean => {
  switch (ast._tag) {
    case "Where":
      return true
    case "Not":
      return hasWhere(ast.filter)
    case "And":
    case "Or":
      return ast.filters.some(hasWhere)
    default:
      return false
  }
}

const globCache = new Map<string, RegExp>()
const pathGlobCache = new Map<string, RegExp>()

const escape = (c: string) => c.replace(/[.+^${}()|[\]\\/]/g, "\\$&")

const compile = (cache: Map<string, RegExp>, pattern: string, source: (pattern: string) => string): RegExp => {
  let re = cache.get(pattern)
  if (re === undefined) {
    re = new RegExp(`^${source(pattern)}$`, "u")
    cache.set(pattern, re)
  }
  return re
}

/**
 * Whether a name pattern has glob characters (`*`, `?`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isGlob = (pattern: string): boolean => /[*?]/.test(pattern)

/**
 * Matches a tool name against a name or a glob: `*` is any run of characters
 * (tool names have no path separators), `?` is one character, the rest is
 * literal (escaped as the `u` flag allows: not `-`, which it rejects).
 *
 * @since 0.1.0
 * @category utils
 */
export const matchName = (pattern: string, name: string): boolean =>
  isGlob(pattern)
    ? compile(globCache, pattern, (p) => Array.from(p, (c) => c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : escape(c)).join(""))
      .test(name)
    : pattern === name

// `**` as a whole segment is any number of segments (`a/**/b` is also `a/b`), elsewhere any run; `*` and `?`
// stay within a segment.
const pathSource = (pattern: string): string => {
  let out = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "*" && pattern[i + 1] === "*") {
      const wholeSegment = (i === 0 || pattern[i - 1] === "/") && pattern[i + 2] === "/"
      out += wholeSegment ? "(?:[\\s\\S]*/)?" : "[\\s\\S]*"
      i += wholeSegment ? 2 : 1
    } else out += c === "*" ? "[^/]*" : c === "?" ? "[^/]" : escape(c)
  }
  return out
}

/**
 * Matches a path against a path glob: `*` and `?` match within one segment
 * (not `/`), `**` across segments (`src/**` is everything under `src`).
 * A relative pattern also matches an
 * absolute path that ends with it, starting at a segment (`src/**` matches
 * `/home/me/repo/src/a.ts`): file tools are given absolute paths, and a
 * recording does not say where it was made. In a permission policy, write
 * an absolute pattern to confine calls to one tree: `src/**` also matches
 * `/elsewhere/src/x`.
 *
 * @since 0.1.0
 * @category utils
 */
export const matchPath = (pattern: string, path: string): boolean => {
  const re = compile(pathGlobCache, pattern, pathSource)
  if (re.test(path)) return true
  if (pattern.startsWith("/") || !path.startsWith("/")) return false
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    if (re.test(path.slice(i + 1))) return true
  }
  return false
}
