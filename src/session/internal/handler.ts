/**
 * Answers the requests the CLI sends a session: `can_use_tool` through the permission callback,
 * `hook_callback` through the hooks, `mcp_message` through the in-process MCP servers, dialogs through their
 * callbacks, and any other request with an error (`Incoming.CallbackError`).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Control from "../../schema/Control.ts"
import * as Dialogs from "../Dialogs.ts"
import type * as HookEvents from "../../schema/HookEvents.ts"
import type * as Hooks from "../Hooks.ts"
import * as Incoming from "../Incoming.ts"
import type * as McpServer from "../McpServer.ts"
import * as CanUseTool from "../CanUseTool.ts"
import * as Protocol from "../Protocol.ts"
import * as SessionError from "../SessionError.ts"
import * as Callback from "./callback.ts"
import { describe } from "./describe.ts"
import type * as HookRegistration from "./hookRegistration.ts"

/** What a session answers with. */
export interface Callbacks<R = never> {
  readonly canUseTool?: CanUseTool.CanUseTool<R> | undefined
  readonly hooks: HookRegistration.Registration<R>
  /** The session's in-process MCP servers, running (see `McpServer.connect`). */
  readonly mcpServers?: ReadonlyArray<McpServer.Connection> | undefined
  /** How long one callback may take before the CLI gets an answer without it. No default. */
  readonly timeout?: Duration.Input | undefined
  /** Questions, elicitations and dialogs, under their own deadline. */
  readonly dialogs?: Dialogs.Callbacks<R> | undefined
}


const callbackError = (reason: Incoming.Reason) => Effect.fail(new Incoming.CallbackError({ reason }))

// Runs the hook a `hook_callback` request names; an unknown callback id is an error answered to the CLI.
const runHook = <R>(
  registration: HookRegistration.Registration<R>,
  request: Control.HookCallbackRequest
): Effect.Effect<Hooks.HookOutput | HookEvents.Output, unknown, R> => {
  const callback = registration.callbacks.get(request.callback_id)
  return callback === undefined
    ? Effect.fail(new Error(`unknown hook callback id ${request.callback_id}`))
    : Effect.suspend(() =>
      Callback.effectOf<Hooks.HookOutput>(
        `the ${request.input.hook_event_name ?? ""} hook`.replace("  ", " "),
        callback(request.input as HookEvents.Input, request.tool_use_id)
      )
    )
}

/**
 * The handler of a session's incoming requests: each callback runs with `context` and, when `callbacks.timeout`
 * is set, fails with a `CallbackError` (`CallbackTimeout`) once it has run that long. Every request
 * gets an answer: when a callback fails, times out, interrupts itself (`CallbackInterrupted`), returns the
 * wrong kind of value or an answer that cannot be written as JSON, the CLI gets a deny (`canUseTool`), a hook
 * error or an MCP error result, and `report` gets a `CallbackFailed` (an MCP tool's wrong result is reported by
 * its connection, see `McpServer.connect`).
 *
 * A callback runs in a fiber of its own: past its deadline the CLI is answered at once and the callback is
 * interrupted in the background, so one that cannot be interrupted neither delays the answer nor the end of
 * the session.
 */
export const handler = <R>(
  callbacks: Callbacks<R>,
  context: Context.Context<R>,
  report: (error: SessionError.SessionError) => Effect.Effect<void> = () => Effect.void
): Protocol.Handler => {
  const timeout = callbacks.timeout === undefined ? undefined : Duration.fromInputUnsafe(callbacks.timeout)
  const failed = (callback: string, detail: string) =>
    report(SessionError.make(new SessionError.CallbackFailed({ callback, detail })))
  // Reports a failure (not an interruption) of `effect` before it goes on.
  const reporting = <A, E>(callback: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.tapCause(effect, (cause) => Cause.hasInterruptsOnly(cause) ? Effect.void : failed(callback, describe(cause)))
  const run = <A>(callback: string, effect: Effect.Effect<A, unknown, R>): Effect.Effect<A, unknown> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkDetach(Effect.provideContext(effect, context))
        // Reached only when the callback interrupted itself: were this fiber interrupted (the CLI cancelled,
        // the session ends), nothing after the join would run.
        const joined = Fiber.join(fiber).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause) ? callbackError(new Incoming.CallbackInterrupted({ callback })) : Effect.failCause(cause)
          )
        )
        const answer = timeout === undefined ? joined : joined.pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () => callbackError(new Incoming.CallbackTimeout({ callback, timeoutMillis: Duration.toMillis(timeout) }))
          })
        )
        // Late, cancelled or the session ending: the callback is interrupted without waiting for it.
        return yield* Effect.onExit(restore(answer), () => Effect.sync(() => fiber.interruptUnsafe()))
      })
    )
  // An answer that cannot be written is reported and replaced by `fallback`'s (an error answer).
  const writable = <A, E = never>(
    callback: string,
    answer: A,
    fallback: (detail: string) => Effect.Effect<A, E>
  ): Effect.Effect<A, E> => {
    const problem = Callback.jsonProblem(answer)
    if (problem === undefined) return Effect.succeed(answer)
    const detail = `its answer cannot be written as JSON (${problem})`
    return Effect.andThen(failed(callback, detail), fallback(detail))
  }
  const { canUseTool, hooks, mcpServers } = callbacks
  const dialogs = callbacks.dialogs ?? {}
  const withServices = <A>(effect: Effect.Effect<A, never, R>) => Effect.provideContext(effect, context)
  return (request) => {
    switch (request._tag) {
      case "CanUseToolRequest":
        if (request.tool_name === "AskUserQuestion" && dialogs.onAskUserQuestion !== undefined) {
          return withServices(Dialogs.askUserQuestion(dialogs, dialogs.onAskUserQuestion, request))
        }
        return canUseTool === undefined
          ? callbackError(new Incoming.MissingCallback({ callback: "canUseTool" }))
          // The deadline is inside the decision, so that a late callback is a deny like a failed one.
          : CanUseTool.decide((tool, input, ctx) =>
            reporting(
              "canUseTool",
              run("canUseTool", Effect.suspend(() => Callback.effectOf<CanUseTool.Decision>("canUseTool", canUseTool(tool, input, ctx))))
            ), request).pipe(
              Effect.flatMap((answer) =>
                writable("canUseTool", answer, (detail) =>
                  CanUseTool.decide(() => Effect.succeed(CanUseTool.deny(`Permission callback failed: ${detail}`)), request))
              )
            )
      case "HookCallbackRequest": {
        const hook = `the ${request.input.hook_event_name ?? "hook"} hook`.replace("hook hook", "hook")
        return reporting(hook, run(hook, runHook(hooks, request))).pipe(
          Effect.flatMap((output) =>
            writable(hook, output, (detail) => Effect.fail(new Error(`${hook} failed: ${detail}`)))
          )
        )
      }
      case "McpMessageRequest": {
        const server = mcpServers?.find((s) => s.name === request.server_name)
        if (server === undefined) return callbackError(new Incoming.UnknownMcpServer({ server: request.server_name }))
        const callback = `the MCP server "${server.name}"`
        return reporting(callback, run(callback, server.handle(request.message as McpServer.JsonRpcMessage))).pipe(
          Effect.map((mcp_response) => ({ mcp_response }))
        )
      }
      case "ElicitationRequest":
        return withServices(Dialogs.elicit(dialogs, request))
      case "RequestUserDialogRequest": {
        const answer = Dialogs.dialog(dialogs, request)
        return answer === undefined
          ? Effect.fail(new Protocol.UnsupportedRequest({ subtype: request.subtype }))
          : withServices(answer)
      }
      default:
        return callbackError(new Protocol.UnsupportedRequest({ subtype: request.subtype }))
    }
  }
}
