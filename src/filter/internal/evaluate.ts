/**
 * What each filter node selects. A tool call is an error (or denied) when its result is: `evaluate` is given
 * that result when it is known, and `residual` tells what is left to decide of a call before its result.
 *
 * @internal
 */
import * as ToolInput from "../../schema/ToolInput.ts"
import * as Ast from "../Ast.ts"
import type * as Item from "../Item.ts"
import { errorKinds, kindsOf } from "./kinds.ts"

/** @internal */
export const isDenied = (item: Item.Item): boolean =>
  (item.kind === "tool_result" && item.denied) ||
  (item.kind === "system" && item.subtype === "permission_denied")

// An API error the CLI reports as an assistant message (`"error": "authentication_failed"`).
const isApiError = (item: Item.TextItem | Item.ThinkingItem | Item.ToolUseItem | Item.BlockItem): boolean =>
  item.message._tag === "AssistantMessage" && item.message.error !== undefined

// How an item of each kind that can be an error is one.
const errorOf: { readonly [K in (typeof errorKinds)[number]]: (item: Extract<Item.Item, { readonly kind: K }>) => boolean } = {
  tool_result: (item) => item.isError,
  result: (item) => item.message.is_error === true || item.message.subtype !== "success",
  system: (item) => item.subtype === "api_retry",
  decode_failure: () => true,
  text: isApiError,
  thinking: isApiError,
  tool_use: isApiError,
  block: isApiError
}

// The kinds named in kinds.ts are item kinds.
errorKinds satisfies ReadonlyArray<Item.Kind>

/** @internal */
export const isError = (item: Item.Item): boolean => {
  const test = (errorOf as { readonly [K in Item.Kind]?: unknown })[item.kind] as ((item: Item.Item) => boolean) | undefined
  return test !== undefined && test(item)
}

const property = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined

// The string an input atom reads of a call, if its input has one there.
const inputString = (ast: Ast.Input, item: Item.ToolUseItem): string | undefined => {
  let value: unknown
  switch (ast.on) {
    case "command":
      value = item.name === "Bash" ? property(item.input, "command") : undefined
      break
    case "url":
      value = item.name === "WebFetch" ? property(item.input, "url") : undefined
      break
    case "path":
      value = Object.hasOwn(Ast.pathFields, item.name)
        ? property(item.input, Ast.pathFields[item.name as keyof typeof Ast.pathFields])
        : undefined
      break
    case "field":
      value = ast.field!.split(".").reduce(property, item.input)
  }
  return typeof value === "string" ? value : undefined
}

const matchesDelta = (kind: string, item: Item.StreamEventItem): boolean =>
  item.eventType === kind || item.deltaType === kind || item.deltaType === `${kind}_delta`

// A call's outcome is its result's: the atoms that test it on a tool_use item.
const outcomeAtoms: ReadonlySet<Ast.Ast["_tag"]> = new Set(["Error", "Denied"])

/**
 * Whether `ast` selects `item`. For a tool_use item, `result` is the tool_result that answered it, when
 * known: `error` then also holds for a call whose result is an error, `denied` for one whose result the
 * permission system refused. Without it (a plain predicate; a call that got no result), neither does.
 *
 * @internal
 */
export const evaluate = (ast: Ast.Ast, item: Item.Item, result?: Item.ToolResultItem): boolean => {
  switch (ast._tag) {
    case "Text":
      return item.kind === "text" && item.role === "assistant"
    case "Thinking":
      return item.kind === "thinking" && item.role === "assistant"
    case "ToolUse":
      return item.kind === "tool_use" && item.role === "assistant" &&
        (ast.name === undefined || Ast.matchName(ast.name, item.name))
    case "Input": {
      if (item.kind !== "tool_use" || item.role !== "assistant") return false
      const value = inputString(ast, item)
      return value !== undefined && (ast.on === "path" ? Ast.matchPath(ast.pattern, value) : Ast.matchName(ast.pattern, value))
    }
    case "Typed":
      return item.kind === "tool_use" && ToolInput.isInputOf(item.name, item.input)
    case "ToolResult":
      return item.kind === "tool_result" &&
        (ast.name === undefined || (item.toolName !== undefined && Ast.matchName(ast.name, item.toolName)))
    case "Error":
      return isError(item) || (item.kind === "tool_use" && result !== undefined && isError(result))
    case "Denied":
      return isDenied(item) || (item.kind === "tool_use" && result !== undefined && isDenied(result))
    case "System":
      return item.kind === "system" && (ast.subtype === undefined || item.subtype === ast.subtype)
    case "MessageType":
      return item.messageType === ast.type
    case "Session":
      return item.sessionId === ast.id
    case "Subagent":
      return item.parentToolUseId !== null
    case "Main":
      return item.parentToolUseId === null
    case "FromTask":
      return item.parentToolUseId === ast.toolUseId
    case "Delta":
      return item.kind === "stream_event" && (ast.kind === undefined || matchesDelta(ast.kind, item))
    case "All":
      return true
    case "None":
      return false
    case "Where":
      return ast.on === "item" ? ast.predicate(item) : item.kind === "tool_use" && ast.predicate(item.input, item)
    case "Not":
      return !evaluate(ast.filter, item, result)
    case "And":
      return ast.filters.every((f) => evaluate(f, item, result))
    case "Or":
      return ast.filters.some((f) => evaluate(f, item, result))
  }
}

/**
 * Whether `ast` can need a call's result to decide it: it tests an outcome (`error`, `denied`) and can
 * select tool_use items.
 *
 * @internal
 */
export const needsResults = (ast: Ast.Ast): boolean => {
  const kinds = kindsOf(ast)
  return (kinds === undefined || kinds.has("tool_use")) && testsOutcome(ast)
}

const testsOutcome = (ast: Ast.Ast): boolean =>
  outcomeAtoms.has(ast._tag) ||
  (ast._tag === "Not" ? testsOutcome(ast.filter) : (ast._tag === "And" || ast._tag === "Or") && ast.filters.some(testsOutcome))

/**
 * A call's outcome, as its result tells it: an error, refused by the permission system. A call with no
 * result is neither.
 *
 * @internal
 */
export interface Outcome {
  readonly error: boolean
  readonly denied: boolean
}

/** @internal */
export const outcomeOf = (result: Item.ToolResultItem | undefined): Outcome => ({
  error: result !== undefined && isError(result),
  denied: result !== undefined && isDenied(result)
})

const outcomes: ReadonlyArray<Outcome> = [
  { error: false, denied: false },
  { error: true, denied: false },
  { error: false, denied: true },
  { error: true, denied: true }
]

/**
 * Decides what `residual` left of a call with the call's outcome.
 *
 * @internal
 */
export const settle = (rest: Ast.Ast, outcome: Outcome): boolean => {
  switch (rest._tag) {
    case "Error":
      return outcome.error
    case "Denied":
      return outcome.denied
    case "Not":
      return !settle(rest.filter, outcome)
    case "And":
      return rest.filters.every((f) => settle(f, outcome))
    case "Or":
      return rest.filters.some((f) => settle(f, outcome))
    default:
      // `residual` leaves no other node.
      return false
  }
}

/**
 * What `ast` says of a call before its result is known: `true` or `false` when no outcome can change it,
 * else what is left to decide with the outcome (see `settle`), a tree of `error`, `denied`, `not`, `and`,
 * `or`. Every other atom is tested now, once.
 *
 * @internal
 */
export const residual = (ast: Ast.Ast, call: Item.ToolUseItem): boolean | Ast.Ast => {
  const rest = partial(ast, call)
  if (typeof rest === "boolean") return rest
  // A tree the outcome does not change (`error | !error`) is decided too.
  const first = settle(rest, outcomes[0]!)
  return outcomes.every((outcome) => settle(rest, outcome) === first) ? first : rest
}

const partial = (ast: Ast.Ast, call: Item.ToolUseItem): boolean | Ast.Ast => {
  switch (ast._tag) {
    case "Error":
      // An API error message's call is an error whatever its result.
      return isError(call) || ast
    case "Denied":
      return ast
    case "Not": {
      const operand = partial(ast.filter, call)
      return typeof operand === "boolean" ? !operand : Ast.not(operand)
    }
    case "And":
    case "Or": {
      // The operand value that decides the junction on its own: false for `and`, true for `or`.
      const decisive = ast._tag === "Or"
      const left: Array<Ast.Ast> = []
      for (const filter of ast.filters) {
        const operand = partial(filter, call)
        if (operand === decisive) return decisive
        if (typeof operand !== "boolean") left.push(operand)
      }
      return left.length === 0 ? !decisive : decisive ? Ast.or(left) : Ast.and(left)
    }
    default:
      return evaluate(ast, call)
  }
}
