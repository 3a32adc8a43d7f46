/**
 * Permission awareness: the mode a run started in, and the tool calls it
 * refused. The CLI reports one refusal up to three times: a
 * `permission_denied` system line, the error tool result sent to the model,
 * and the result's `permission_denials`; {@link refusals} gives each once.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { ToolResultBlock } from "./ContentBlock.ts"
import type { Message, UserMessage, UserMessageReplay } from "./Message.ts"
import type { PermissionDenial } from "./Result.ts"
import type { ToolResultMeta } from "./ToolUseResult.ts"

/**
 * The permission modes the CLI takes: the one list `QueryOptions.PermissionMode`, the session's
 * `setPermissionMode` and the cluster's RPCs are made from. Decoded messages keep the mode as a string so
 * that a new mode never fails a decode.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionMode = Schema.Literals(["default", "acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"])

/**
 * A permission mode the CLI takes.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionMode = typeof PermissionMode.Type

/**
 * The permission mode announced by an `init` line (or a `status` line that
 * changed it), if the message carries one.
 *
 * @since 0.1.0
 * @category accessors
 */
export const permissionMode = (message: Message): string | undefined => {
  switch (message._tag) {
    case "SystemInit":
      return message.mode
    case "SystemStatus":
      return message.permissionMode
    default:
      return undefined
  }
}

// The CLI's wordings of a refusal: no grant in headless mode, a deny rule or
// the auto-mode classifier, the user saying no, plan mode, and the Bash
// safety checks (several operations, output redirection, a change of
// directory) that ask for an approval no one can give in -p mode.
const refusalPattern = new RegExp(
  [
    "requested permissions to ",
    "haven't granted it yet",
    "permission (?:to use .+?|for this action) (?:has been|was) denied",
    "doesn't want to proceed with this tool use",
    "cannot (?:write to|call) .+? while in plan mode",
    "the following parts? requires? approval",
    "command contains output redirection",
    "require explicit approval",
    "^(?:<tool_use_error>)?\\S.{0,300}? needs approval\\b"
  ].join("|"),
  "i"
)

/**
 * Whether a text is the CLI refusing a tool call for lack of permission, in
 * any of its wordings (plan mode and the Bash safety checks included). Where
 * a run's result lists its `permission_denials`, that list has the last word
 * (see {@link denials}).
 *
 * @example
 * ```ts
 * import { Permission } from "effect-claude-code/schema"
 * Permission.isRefusalText("Cannot write to /w/out.txt while in plan mode.") // true
 * Permission.isRefusalText("Exit code 1") // false
 * ```
 *
 * @since 0.1.0
 * @category predicates
 */
export const isRefusalText = (text: string): boolean => refusalPattern.test(text)

/**
 * The `tool_result_meta` entry of a tool call in a user message, if the CLI
 * wrote one (CLI 2.1.330 writes the permission decision of each call beside
 * its result; older CLIs leave only the text).
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolResultMeta = (message: UserMessage | UserMessageReplay, toolUseId: string): ToolResultMeta | undefined =>
  message.tool_result_meta?.find((entry) => entry.id === toolUseId)

/**
 * Whether a tool result is the CLI refusing the call for lack of permission
 * (as opposed to the tool itself failing). With the call's `tool_result_meta`
 * entry (CLI 2.1.330 writes one), its permission decision says so; without,
 * an error result in one of the refusal wordings does.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isPermissionDenied = (block: ToolResultBlock, meta?: ToolResultMeta): boolean =>
  meta === undefined ? block.isError && isRefusalText(block.text) : meta.permission_decision?.decision === "reject"

/**
 * A refused tool call, as one place reported it. `toolName` and `toolInput`
 * are known from the result, the system line, or the tool call when it was
 * seen (see {@link toolCalls}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Denial {
  readonly source: "result" | "tool_result" | "system"
  readonly toolUseId: string
  readonly toolName: string | undefined
  readonly toolInput: { readonly [k: string]: unknown } | undefined
  readonly detail: string | undefined
}

/**
 * A tool call by id, to name the tool of a refused tool result.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCalls = ReadonlyMap<string, { readonly name: string; readonly input: { readonly [k: string]: unknown } }>

/**
 * The client tool calls an assistant message makes, by id (empty for any
 * other message).
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolCalls = (message: Message): ToolCalls =>
  new Map(message._tag === "AssistantMessage" ? message.toolUses.map((block) => [block.id, block] as const) : [])

const fromResult = (denial: PermissionDenial): Denial => ({
  source: "result",
  toolUseId: denial.tool_use_id,
  toolName: denial.tool_name,
  toolInput: denial.tool_input,
  detail: undefined
})

/**
 * The denials one message reports: a result's `permission_denials`, a user
 * turn's refused tool results (named after `calls` when the call is there),
 * or a `permission_denied` system line.
 *
 * @since 0.1.0
 * @category accessors
 */
export const denials = (message: Message, calls: ToolCalls = new Map()): ReadonlyArray<Denial> => {
  switch (message._tag) {
    case "ResultSuccess":
    case "ResultError":
      return (message.permission_denials ?? []).map(fromResult)
    case "UserMessage":
    case "UserMessageReplay": {
      return message.toolResults.filter((block) => isPermissionDenied(block, toolResultMeta(message, block.tool_use_id))).map((block) => {
        const call = calls.get(block.tool_use_id)
        return { source: "tool_result", toolUseId: block.tool_use_id, toolName: call?.name, toolInput: call?.input, detail: block.text }
      })
    }
    case "SystemPermissionDenied":
      return [{
        source: "system",
        toolUseId: message.tool_use_id,
        toolName: message.tool_name,
        toolInput: calls.get(message.tool_use_id)?.input,
        detail: message.message
      }]
    default:
      return []
  }
}

/**
 * One refused tool call, however many places reported it: `sources` lists
 * them in the order seen, the other fields are the first each one gave.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal extends Omit<Denial, "source"> {
  readonly sources: ReadonlyArray<Denial["source"]>
}

/**
 * Merges the denials of one tool call (by `toolUseId`) into one
 * {@link Refusal}, in the order the calls were first reported.
 *
 * @since 0.1.0
 * @category combinators
 */
export const dedupe = (all: Iterable<Denial>): ReadonlyArray<Refusal> => {
  const byId = new Map<string, Refusal>()
  for (const { source, ...denial } of all) {
    const seen = byId.get(denial.toolUseId)
    byId.set(
      denial.toolUseId,
      seen === undefined ? { ...denial, sources: [source] } : {
        toolUseId: seen.toolUseId,
        toolName: seen.toolName ?? denial.toolName,
        toolInput: seen.toolInput ?? denial.toolInput,
        detail: seen.detail ?? denial.detail,
        sources: seen.sources.includes(source) ? seen.sources : [...seen.sources, source]
      }
    )
  }
  return [...byId.values()]
}

/**
 * Every tool call a run refused, once each, from its messages in order.
 *
 * @example
 * ```ts
 * import * as Result from "effect/Result"
 * import { Message, Permission } from "effect-claude-code/schema"
 * declare const lines: ReadonlyArray<string> // a stream-json transcript
 * const messages = lines.map((line) => Result.getOrThrow(Message.decodeMessage(JSON.parse(line))))
 * for (const refusal of Permission.refusals(messages)) {
 *   console.log(`${refusal.toolName} refused (${refusal.sources.join(", ")}): ${refusal.detail}`)
 * }
 * ```
 *
 * @since 0.1.0
 * @category accessors
 */
export const refusals = (messages: Iterable<Message>): ReadonlyArray<Refusal> => {
  const calls = new Map<string, { readonly name: string; readonly input: { readonly [k: string]: unknown } }>()
  const all: Array<Denial> = []
  for (const message of messages) {
    for (const [id, call] of toolCalls(message)) calls.set(id, call)
    all.push(...denials(message, calls))
  }
  return dedupe(all)
}
