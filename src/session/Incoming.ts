/**
 * Answers the requests the CLI sends a session: `can_use_tool` through the permission callback,
 * `hook_callback` through the hooks, `mcp_message` through the in-process MCP servers, and any other request
 * with an error. Build the answering function with {@link handler}.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import type * as Control from "../schema/Control.ts"
import * as Dialogs from "./Dialogs.ts"
import type * as HookEvents from "../schema/HookEvents.ts"
import * as Hooks from "./Hooks.ts"
import * as Callback from "./internal/callback.ts"
import { describe } from "./internal/describe.ts"
import type * as McpServer from "./McpServer.ts"
import * as CanUseTool from "./CanUseTool.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionError from "./SessionError.ts"

/**
 * What a session answers with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callbacks<R = never> {
  readonly canUseTool?: CanUseTool.CanUseTool<R> | undefined
  readonly hooks: Hooks.Registration<R>
  /** The session's in-process MCP servers, running (see `McpServer.connect`). */
  readonly mcpServers?: ReadonlyArray<McpServer.Connection> | undefined
  /** How long one callback may take before the CLI gets an answer without it. No default. */
  readonly timeout?: Duration.Input | undefined
  /** Questions, elicitations and dialogs, under their own deadline. */
  readonly dialogs?: Dialogs.Callbacks<R> | undefined
}

/**
 * A callback took longer than the session's `callbackTimeout`; it was interrupted and the CLI was answered
 * with this message (as a deny for `canUseTool`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class CallbackTimeout extends Schema.TaggedError<CallbackTimeout>()("CallbackTimeout", {
  /** Which callback: `canUseTool`, `the PreToolUse hook`, `the MCP server "calc"`. */
  callback: Schema.String,
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `${this.callback} did not answer within ${this.timeoutMillis} ms (callbackTimeout)`
  }
}

/**
 * A callback's Effect ended by interruption of its own (`Effect.interrupt`, joining an interrupted fiber)
 * before it answered; the CLI was answered with this message (as a deny for `canUseTool`). A request the CLI
 * withdraws (`control_cancel_request`) is not this: it gets no answer, as the protocol wants.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CallbackInterrupted extends Schema.TaggedError<CallbackInterrupted>()("CallbackInterrupted", {
  /** Which callback: `canUseTool`, `the PreToolUse hook`, `the MCP server "calc"`. */
  callback: Schema.String
}) {
  override get message(): string {
    return `${this.callback} was interrupted before it answered`
  }
}

/**
 * The CLI asked for a callback the session does not have: a permission decision without a `canUseTool`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingCallback extends Schema.TaggedError<MissingCallback>()("MissingCallback", {
  /** Which callback: `canUseTool`. */
  callback: Schema.String
}) {
  override get message(): string {
    return `no ${this.callback} callback is registered`
  }
}

/**
 * The CLI sent a message for an SDK MCP server the session does not have.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnknownMcpServer extends Schema.TaggedError<UnknownMcpServer>()("UnknownMcpServer", {
  server: Schema.String
}) {
  override get message(): string {
    return `unknown MCP server ${this.server}`
  }
}

/**
 * Every reason a `CallbackError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([
  CallbackTimeout,
  CallbackInterrupted,
  MissingCallback,
  UnknownMcpServer,
  Protocol.UnsupportedRequest
])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * Why an incoming request of the CLI was answered with an error instead of a callback's answer; the CLI gets
 * its message. Recover by reason with `Effect.catchReason("CallbackError", "CallbackTimeout", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class CallbackError extends Schema.TaggedError<CallbackError>()("CallbackError", { reason: Reason }) {
  override get message(): string {
    return this.reason.message
  }
}

const callbackError = (reason: Reason) => Effect.fail(new CallbackError({ reason }))

// Runs the hook a `hook_callback` request names; an unknown callback id is an error answered to the CLI.
const runHook = <R>(
  registration: Hooks.Registration<R>,
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
 * is set, fails with a {@link CallbackError} ({@link CallbackTimeout}) once it has run that long. Every request
 * gets an answer: when a callback fails, times out, interrupts itself ({@link CallbackInterrupted}), returns the
 * wrong kind of value or an answer that cannot be written as JSON, the CLI gets a deny (`canUseTool`), a hook
 * error or an MCP error result, and `report` gets a `CallbackFailed` (an MCP tool's wrong result is reported by
 * its connection, see `McpServer.connect`).
 *
 * A callback runs in a fiber of its own: past its deadline the CLI is answered at once and the callback is
 * interrupted in the background, so one that cannot be interrupted neither delays the answer nor the end of
 * the session.
 *
 * @since 0.1.0
 * @category constructors
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
            Cause.hasInterruptsOnly(cause) ? callbackError(new CallbackInterrupted({ callback })) : Effect.failCause(cause)
          )
        )
        const answer = timeout === undefined ? joined : joined.pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () => callbackError(new CallbackTimeout({ callback, timeoutMillis: Duration.toMillis(timeout) }))
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
          ? callbackError(new MissingCallback({ callback: "canUseTool" }))
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
        if (server === undefined) return callbackError(new UnknownMcpServer({ server: request.server_name }))
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
