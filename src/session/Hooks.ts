/**
 * Hook callbacks as Effects, per event and matcher. They are registered in the `initialize` request under
 * generated callback ids, and the CLI calls them back with `hook_callback` requests.
 *
 * `SessionStart` and `SessionEnd` hooks can be registered, but Claude Code 2.1.330 never calls them back
 * in this mode (stream-json input, hooks from `initialize`): a known upstream limitation,
 * https://github.com/anthropics/claude-agent-sdk-typescript/issues/465. Put context for the start of a
 * session in `appendSystemPrompt` or the first prompt, and run clean-up after `close` or the Scope instead;
 * command hooks in settings files (`settingSources`) are run by the CLI itself.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Control from "../schema/Control.ts"
import * as Callback from "./internal/callback.ts"

/**
 * The events a hook can be registered for. `SessionStart` and `SessionEnd` are never called back by
 * Claude Code 2.1.330 in a session (see the module documentation).
 *
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
 * A hook. A failure (also a return that is no Effect, or output that cannot be written as JSON) is answered
 * as an error, which the CLI reports (and treats as a block when the matcher says `onFailure: "block"`), and
 * the session reports it on `Session.errors`. It may use services (`R`), taken from the context
 * `Session.make` ran in.
 *
 * @since 0.1.0
 * @category models
 */
export type HookCallback<R = never> = (
  input: HookInput,
  toolUseId: string | undefined
) => Effect.Effect<HookOutput, unknown, R>

/**
 * @since 0.1.0
 * @category models
 */
export interface HookMatcher<R = never> {
  /** Tool name pattern for tool events (`"Bash"`, `"Write|Edit"`); all when absent. */
  readonly matcher?: string | undefined
  readonly hooks: ReadonlyArray<HookCallback<R>>
  /** Seconds the CLI waits for these hooks. */
  readonly timeout?: number | undefined
  readonly onFailure?: "continue" | "block" | undefined
}

/**
 * The hooks of a session, by event.
 *
 * @since 0.1.0
 * @category models
 */
export type Hooks<R = never> = Partial<Record<HookEvent, ReadonlyArray<HookMatcher<R>>>>

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
export interface Registration<R = never> {
  readonly wire: Record<string, ReadonlyArray<Record<string, unknown>>> | undefined
  readonly callbacks: ReadonlyMap<string, HookCallback<R>>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const register = <R>(hooks: Hooks<R> | undefined): Registration<R> => {
  const callbacks = new Map<string, HookCallback<R>>()
  const entries = Object.entries(hooks ?? {}) as Array<[HookEvent, ReadonlyArray<HookMatcher<R>>]>
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
export const run = <R>(
  registration: Registration<R>,
  request: Control.HookCallbackRequest
): Effect.Effect<HookOutput, unknown, R> => {
  const callback = registration.callbacks.get(request.callback_id)
  return callback === undefined
    ? Effect.fail(new Error(`unknown hook callback id ${request.callback_id}`))
    : Effect.suspend(() =>
      Callback.effectOf<HookOutput>(
        `the ${request.input.hook_event_name ?? ""} hook`.replace("  ", " "),
        callback(request.input, request.tool_use_id)
      )
    )
}
