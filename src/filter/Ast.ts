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
export type Ast = Flag | ToolUse | ToolResult | System | MessageType | Session | FromTask | Delta | Where | Not | And | Or

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
export const matchName = (pattern: string, name: string): boolean => {
  if (!isGlob(pattern)) return pattern === name
  let re = globCache.get(pattern)
  if (re === undefined) {
    const source = Array.from(pattern, (c) =>
      c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : c.replace(/[.+^${}()|[\]\\/]/g, "\\$&")).join("")
    re = new RegExp(`^${source}$`, "u")
    globCache.set(pattern, re)
  }
  return re.test(name)
}
