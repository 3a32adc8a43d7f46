/**
 * What each filter node selects.
 *
 * @internal
 */
import * as ToolInput from "../../schema/ToolInput.ts"
import * as Ast from "../Ast.ts"
import type * as Item from "../Item.ts"
import { errorKinds } from "./kinds.ts"

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

const matchesDelta = (kind: string, item: Item.StreamEventItem): boolean =>
  item.eventType === kind || item.deltaType === kind || item.deltaType === `${kind}_delta`

/** @internal */
export const evaluate = (ast: Ast.Ast, item: Item.Item): boolean => {
  switch (ast._tag) {
    case "Text":
      return item.kind === "text" && item.role === "assistant"
    case "Thinking":
      return item.kind === "thinking" && item.role === "assistant"
    case "ToolUse":
      return item.kind === "tool_use" && item.role === "assistant" &&
        (ast.name === undefined || Ast.matchName(ast.name, item.name))
    case "Typed":
      return item.kind === "tool_use" && ToolInput.isInputOf(item.name, item.input)
    case "ToolResult":
      return item.kind === "tool_result" &&
        (ast.name === undefined || (item.toolName !== undefined && Ast.matchName(ast.name, item.toolName)))
    case "Error":
      return isError(item)
    case "Denied":
      return isDenied(item)
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
      return !evaluate(ast.filter, item)
    case "And":
      return ast.filters.every((f) => evaluate(f, item))
    case "Or":
      return ast.filters.some((f) => evaluate(f, item))
  }
}
