/**
 * The `canUseTool` permission callback: for each `can_use_tool` request the CLI sends, the application answers
 * {@link Allow} (possibly with a rewritten input or permission updates) or {@link Deny}. A failure or defect of
 * the callback is never left unanswered: it becomes a deny that names the reason.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
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
 * import { Permission } from "effect-claude-code/session"
 *
 * const canUseTool: Permission.CanUseTool = (tool, input) =>
 *   Effect.succeed(tool === "Bash" ? Permission.deny("no shell") : Permission.allow({ updatedInput: input }))
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
