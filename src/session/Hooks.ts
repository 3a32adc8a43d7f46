/**
 * Hook callbacks as Effects, per event and matcher, for every event of `HookEvents` with that event's typed
 * input. They are registered in the `initialize` request under generated callback ids, and the CLI calls them
 * back with `hook_callback` requests.
 *
 * Which events Claude Code fires in a session: the README's "Sessions in detail".
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HookEvents from "../schema/HookEvents.ts"

/**
 * The events a hook can be registered for: all of `HookEvents.events`. Claude Code 2.1.332 calls back
 * `SessionStart` and `SessionEnd` in a session only around `/clear` (and `SessionStart` after `/compact`), not as
 * it starts or ends (an upstream limitation, see the README's "Sessions in detail").
 *
 * @since 0.1.0
 * @category models
 */
export type HookEvent = HookEvents.HookEvent

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
export interface HookOutput extends Omit<HookEvents.Output, "hookSpecificOutput"> {
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A hook for event `E`, given that event's typed input (see `HookEvents.Input`). A failure (also a return that
 * is no Effect, or output that cannot be written as JSON) is answered as an error, which the CLI reports (and
 * treats as a block when the matcher says `onFailure: "block"`), and the session reports it on
 * `Session.errors`. It may use services (`R`), taken from the context `Session.make` ran in.
 *
 * @since 0.1.0
 * @category models
 */
export type HookCallback<R = never, E extends HookEvent = HookEvent> = (
  input: HookEvents.Input<E>,
  toolUseId: string | undefined
) => Effect.Effect<HookOutput | HookEvents.Output<E>, unknown, R>

/**
 * @since 0.1.0
 * @category models
 */
export interface HookMatcher<R = never, E extends HookEvent = HookEvent> {
  /** Tool name pattern for tool events (`"Bash"`, `"Write|Edit"`); all when absent. */
  readonly matcher?: string | undefined
  readonly hooks: ReadonlyArray<HookCallback<R, E>>
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
export type Hooks<R = never> = { readonly [E in HookEvent]?: ReadonlyArray<HookMatcher<R, E>> }

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
