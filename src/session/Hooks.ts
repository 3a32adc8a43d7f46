/**
 * Hook callbacks as Effects, per event and matcher. They are registered in the `initialize` request under
 * generated callback ids, and the CLI calls them back with `hook_callback` requests.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Control from "../schema/Control.ts"

/**
 * @since 0.1.0
 * @category models
 */
export type HookEvent =
  | "PreToolUse"
  | "PostToolUse"
  | "UserPromptSubmit"
  | "Stop"
  | "SubagentStop"
  | "PreCompact"
  | "Notification"
  | "SessionStart"
  | "SessionEnd"

/**
 * What the CLI passes to a hook (`hook_event_name`, `session_id`, `tool_name`, `tool_input`, ...).
 *
 * @since 0.1.0
 * @category models
 */
export type HookInput = Readonly<Record<string, unknown>> & { readonly hook_event_name?: string }

/**
 * A hook's answer, as for command hooks: `decision: "block"` with a `reason`, `continue: false`, a
 * `systemMessage`, `hookSpecificOutput` (e.g. `permissionDecision` for PreToolUse).
 *
 * @since 0.1.0
 * @category models
 */
export interface HookOutput {
  readonly continue?: boolean | undefined
  readonly suppressOutput?: boolean | undefined
  readonly stopReason?: string | undefined
  readonly decision?: "approve" | "block" | undefined
  readonly reason?: string | undefined
  readonly systemMessage?: string | undefined
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A hook. A failure is answered as an error, which the CLI reports (and treats as a block when the matcher
 * says `onFailure: "block"`).
 *
 * @since 0.1.0
 * @category models
 */
export type HookCallback = (input: HookInput, toolUseId: string | undefined) => Effect.Effect<HookOutput, unknown>

/**
 * @since 0.1.0
 * @category models
 */
export interface HookMatcher {
  /** Tool name pattern for tool events (`"Bash"`, `"Write|Edit"`); all when absent. */
  readonly matcher?: string | undefined
  readonly hooks: ReadonlyArray<HookCallback>
  /** Seconds the CLI waits for these hooks. */
  readonly timeout?: number | undefined
  readonly onFailure?: "continue" | "block" | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Hooks = Partial<Record<HookEvent, ReadonlyArray<HookMatcher>>>

/**
 * A hook that blocks the action with a reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const block = (reason: string): HookOutput => ({ decision: "block", reason })

/**
 * A PreToolUse answer that settles the tool's permission: `"deny"` blocks it with the reason shown to the
 * model, `"allow"` skips the permission prompt, `"ask"` prompts as usual.
 *
 * @since 0.1.0
 * @category constructors
 */
export const permissionDecision = (decision: "allow" | "deny" | "ask", reason?: string): HookOutput => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: decision,
    ...(reason === undefined ? {} : { permissionDecisionReason: reason })
  }
})

/**
 * Text added to the model's context: for UserPromptSubmit (beside the prompt), SessionStart, PostToolUse.
 *
 * @since 0.1.0
 * @category constructors
 */
export const additionalContext = (
  event: "UserPromptSubmit" | "SessionStart" | "PostToolUse",
  text: string
): HookOutput => ({ hookSpecificOutput: { hookEventName: event, additionalContext: text } })

/**
 * A hook output that lets the action go ahead.
 *
 * @since 0.1.0
 * @category constructors
 */
export const proceed: HookOutput = {}

/**
 * The hooks as registered: the `initialize` payload and the callbacks by id.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registration {
  readonly wire: Record<string, ReadonlyArray<Record<string, unknown>>> | undefined
  readonly callbacks: ReadonlyMap<string, HookCallback>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const register = (hooks: Hooks | undefined): Registration => {
  const callbacks = new Map<string, HookCallback>()
  const entries = Object.entries(hooks ?? {}) as Array<[HookEvent, ReadonlyArray<HookMatcher>]>
  if (entries.length === 0) return { wire: undefined, callbacks }
  const wire = Object.fromEntries(entries.map(([event, matchers]) => [
    event,
    matchers.map((m) => ({
      ...(m.matcher === undefined ? {} : { matcher: m.matcher }),
      hookCallbackIds: m.hooks.map((hook) => {
        const id = `hook_${callbacks.size}`
        callbacks.set(id, hook)
        return id
      }),
      ...(m.timeout === undefined ? {} : { timeout: m.timeout }),
      ...(m.onFailure === undefined ? {} : { onFailure: m.onFailure })
    }))
  ]))
  return { wire, callbacks }
}

/**
 * Runs the hook a `hook_callback` request names; an unknown callback id is an error answered to the CLI.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (registration: Registration, request: Control.HookCallbackRequest): Effect.Effect<HookOutput, unknown> => {
  const callback = registration.callbacks.get(request.callback_id)
  return callback === undefined
    ? Effect.fail(new Error(`unknown hook callback id ${request.callback_id}`))
    : Effect.suspend(() => callback(request.input, request.tool_use_id))
}
