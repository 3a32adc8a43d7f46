/**
 * The data behind a filter: a tree of plain, immutable nodes. Two filters
 * built the same way have structurally equal trees (`Equal.equals`), and every
 * tree but one holding a {@link Where} predicate has a text form
 * (see `Syntax.describe`) that parses back to an equal tree.
 *
 * @since 0.1.0
 */

/**
 * An atom that takes no argument.
 *
 * - `Text`, `Thinking`: text / thinking blocks of assistant messages.
 * - `Error`: error tool results, error results, API retries, decode failures.
 * - `Denied`: tool results the permission system refused.
 * - `Subagent` / `Main`: items of messages with / without a `parent_tool_use_id`.
 * - `All` / `None`: every item / no item.
 *
 * @since 0.1.0
 * @category models
 */
export interface Flag {
  readonly _tag: "Text" | "Thinking" | "Error" | "Denied" | "Subagent" | "Main" | "All" | "None"
}

/**
 * `tool_use` blocks of assistant messages, by tool name or name glob
 * (`*` any run of characters, `?` one character).
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
 * A predicate written in code; it has no text form.
 *
 * @since 0.1.0
 * @category models
 */
export interface Where {
  readonly _tag: "Where"
  readonly label: string
  readonly predicate: (item: any) => boolean
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
 * @since 0.1.0
 * @category constructors
 */
export const not = (filter: Ast): Ast => ({ _tag: "Not", filter })

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
 * (tool names have no path separators), `?` is one character, the rest is literal.
 *
 * @since 0.1.0
 * @category utils
 */
export const matchName = (pattern: string, name: string): boolean => {
  if (!isGlob(pattern)) return pattern === name
  let re = globCache.get(pattern)
  if (re === undefined) {
    const source = Array.from(pattern, (c) =>
      c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : c.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")).join("")
    re = new RegExp(`^${source}$`, "u")
    globCache.set(pattern, re)
  }
  return re.test(name)
}
