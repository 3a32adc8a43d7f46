/**
 * Permission awareness: the mode a run started in, and the tool calls it
 * refused (from `result.permission_denials` and from error tool results).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { ToolResultBlock } from "./ContentBlock.ts"
import type { Message } from "./Message.ts"
import type { PermissionDenial } from "./Result.ts"

/**
 * The permission modes the CLI documents. Decoded messages keep the mode
 * as a string so that a new mode never fails a decode.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionMode = Schema.Literals(["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"])

/**
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

// What the CLI writes into the tool result when it refuses a tool call.
const deniedPattern = /Claude requested permissions to |permission to use .* (has been|was) denied|haven't granted it yet/i

/**
 * Whether an error tool result is the CLI refusing the call for lack of
 * permission (as opposed to the tool itself failing).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isPermissionDenied = (block: ToolResultBlock): boolean => block.isError && deniedPattern.test(block.text)

/**
 * A refused tool call, from whichever place reported it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Denial {
  readonly source: "result" | "tool_result" | "system"
  readonly toolUseId: string
  readonly toolName: string | undefined
  readonly detail: string | undefined
}

const fromResult = (denial: PermissionDenial): Denial => ({
  source: "result",
  toolUseId: denial.tool_use_id,
  toolName: denial.tool_name,
  detail: undefined
})

/**
 * The denials one message reports: a result's `permission_denials`, a user
 * turn's refused tool results, or a `permission_denied` system line.
 *
 * @since 0.1.0
 * @category accessors
 */
export const denials = (message: Message): ReadonlyArray<Denial> => {
  switch (message._tag) {
    case "ResultSuccess":
    case "ResultError":
      return (message.permission_denials ?? []).map(fromResult)
    case "UserMessage":
    case "UserMessageReplay":
      return message.toolResults.filter(isPermissionDenied).map((block) => ({
        source: "tool_result",
        toolUseId: block.tool_use_id,
        toolName: undefined,
        detail: block.text
      }))
    case "SystemPermissionDenied":
      return [{ source: "system", toolUseId: message.tool_use_id, toolName: message.tool_name, detail: message.message }]
    default:
      return []
  }
}
