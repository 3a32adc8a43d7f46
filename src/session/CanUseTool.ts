/**
 * The `canUseTool` permission callback: for each `can_use_tool` request the CLI sends, the application answers
 * {@link Allow} (possibly with a rewritten input or permission updates) or {@link Deny}. A failure or defect of
 * the callback is never left unanswered: it becomes a deny that names the reason.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Control from "../schema/Control.ts"
import { describe } from "./internal/describe.ts"

/**
 * A permission update as the CLI understands it (`addRules`, `setMode`, `addDirectories`, ...).
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionUpdate = Readonly<Record<string, unknown>> & { readonly type: string }

/**
 * @since 0.1.0
 * @category models
 */
export interface Allow {
  readonly _tag: "Allow"
  /** Replaces the tool's input. */
  readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
  readonly updatedPermissions?: ReadonlyArray<PermissionUpdate> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Deny {
  readonly _tag: "Deny"
  /** Shown to the model as the tool's error result. */
  readonly message: string
  /** Also stop the turn. */
  readonly interrupt: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = Allow | Deny

/**
 * What the CLI tells about the request besides the tool and its input.
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly toolUseId: string | undefined
  /** Updates the CLI proposes (what "always allow" would add). */
  readonly suggestions: ReadonlyArray<PermissionUpdate>
  readonly blockedPath: string | undefined
  readonly decisionReason: string | undefined
}

/**
 * The callback. Its error channel is free: failures become a deny. It may use services (`R`): the session
 * runs it with the context `Session.make` was run in.
 *
 * @since 0.1.0
 * @category models
 */
export type CanUseTool<R = never> = (
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  context: Context
) => Effect.Effect<Decision, unknown, R>

/**
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CanUseTool } from "effect-claude-code/session"
 *
 * const canUseTool: CanUseTool.CanUseTool = (tool, input) =>
 *   Effect.succeed(tool === "Bash" ? CanUseTool.deny("no shell") : CanUseTool.allow({ updatedInput: input }))
 * ```
 */
export const allow = (options: Omit<Allow, "_tag"> = {}): Decision => ({ _tag: "Allow", ...options })

/**
 * @since 0.1.0
 * @category constructors
 */
export const deny = (message: string, options: { readonly interrupt?: boolean | undefined } = {}): Decision => ({
  _tag: "Deny",
  message,
  interrupt: options.interrupt ?? false
})

/**
 * The `can_use_tool` request, as decoded from the CLI.
 *
 * @since 0.1.0
 * @category models
 */
export type Request = Control.CanUseToolRequest

// The wire answer for a decision. An allow always carries the input to run with: the CLI uses it verbatim.
const toResponse = (decision: Decision, request: Request): Record<string, unknown> =>
  decision._tag === "Allow"
    ? {
      behavior: "allow",
      updatedInput: decision.updatedInput ?? request.input,
      ...(decision.updatedPermissions === undefined ? {} : { updatedPermissions: decision.updatedPermissions }),
      ...(request.tool_use_id === undefined ? {} : { toolUseID: request.tool_use_id })
    }
    : {
      behavior: "deny",
      message: decision.message,
      ...(decision.interrupt ? { interrupt: true } : {}),
      ...(request.tool_use_id === undefined ? {} : { toolUseID: request.tool_use_id })
    }

/**
 * Runs the callback for one request; never fails. A callback that fails, dies or interrupts itself is a deny
 * naming why (an interruption from outside stops this Effect instead).
 *
 * @since 0.1.0
 * @category running
 */
export const decide = <R>(canUseTool: CanUseTool<R>, request: Request): Effect.Effect<Record<string, unknown>, never, R> =>
  Effect.suspend(() =>
    canUseTool(request.tool_name, request.input, {
      toolUseId: request.tool_use_id,
      suggestions: (request.permission_suggestions ?? []) as ReadonlyArray<PermissionUpdate>,
      blockedPath: request.blocked_path,
      decisionReason: request.decision_reason
    })
  ).pipe(
    Effect.exit,
    Effect.flatMap((exit) => {
      if (Exit.isSuccess(exit)) return Effect.succeed(toResponse(exit.value, request))
      const why = Cause.hasInterruptsOnly(exit.cause) ? "the callback was interrupted before it answered" : describe(exit.cause)
      return Effect.succeed(toResponse(deny(`Permission callback failed: ${why}`), request))
    })
  )

/**
 * A `canUseTool` callback the CLI will not call for some tools: `permissionMode: "bypassPermissions"`
 * approves every call before the callback is asked, and a bare `allowedTools` entry (a tool name without a
 * rule in parentheses, such as `"Bash"`) approves that whole tool. `tools` names the bare entries (empty for
 * the bypass). The wording and the condition are the SDK's (`CLAUDE_SDK_CAN_USE_TOOL_SHADOWED`); allow rules
 * of settings files can shadow the callback too, but are not seen here.
 *
 * @since 0.1.0
 * @category warnings
 */
export class CanUseToolShadowed extends Data.TaggedClass("CanUseToolShadowed")<{
  readonly permissionMode: string | undefined
  readonly tools: ReadonlyArray<string>
}> {
  /**
   * The SDK's code for this warning.
   *
   * @since 0.1.0
   */
  get code(): string {
    return "CLAUDE_SDK_CAN_USE_TOOL_SHADOWED"
  }

  /**
   * @since 0.1.0
   */
  get message(): string {
    return this.permissionMode === "bypassPermissions"
      ? "canUseTool will not be invoked: permissionMode 'bypassPermissions' auto-approves every tool call (except explicit deny rules) before the callback is consulted. To gate every tool call, use a PreToolUse hook instead."
      : `canUseTool will not be invoked for: ${this.tools.join(", ")}. Bare allowedTools entries auto-approve the whole tool before the callback is consulted. To gate every tool call, use a PreToolUse hook; or remove the bare names from allowedTools so they fall through to canUseTool. Allow rules from settings files can also shadow the callback but are not visible here.`
  }
}

/**
 * The warning for options whose `canUseTool` the CLI will not call for some tools (see
 * {@link CanUseToolShadowed}); `undefined` without a callback, or when nothing shadows it. A session logs it
 * with `Effect.logWarning` as it starts, annotated with its `code`.
 *
 * @since 0.1.0
 * @category warnings
 */
export const shadowed = (options: {
  readonly canUseTool?: unknown
  readonly permissionMode?: string | undefined
  readonly allowedTools?: ReadonlyArray<string> | undefined
}): CanUseToolShadowed | undefined => {
  if (options.canUseTool === undefined) return undefined
  if (options.permissionMode === "bypassPermissions") return new CanUseToolShadowed({ permissionMode: options.permissionMode, tools: [] })
  const tools = (options.allowedTools ?? []).filter((rule) => rule.length > 0 && !rule.includes("("))
  return tools.length === 0 ? undefined : new CanUseToolShadowed({ permissionMode: options.permissionMode, tools })
}
