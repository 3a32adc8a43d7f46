/**
 * Answers the requests the CLI sends a session: `can_use_tool` through the permission callback,
 * `hook_callback` through the registered hooks, `mcp_message` through the in-process MCP servers. Any other
 * request (or one for a callback or server that does not exist) is answered with an error, never ignored.
 *
 * Callbacks run with the services of the context the session was made in, and under an optional deadline:
 * past it the CLI gets a deny (permissions) or an error answer (hooks, MCP) that names the timeout.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Hooks from "./Hooks.ts"
import * as Callback from "./internal/callback.ts"
import { describe } from "./internal/describe.ts"
import * as McpServer from "./McpServer.ts"
import * as Permission from "./Permission.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionError from "./SessionError.ts"

/**
 * What a session answers with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callbacks<R = never> {
  readonly canUseTool?: Permission.CanUseTool<R> | undefined
  readonly hooks: Hooks.Registration<R>
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer<R>> | undefined
  /** How long one callback may take before the CLI gets an answer without it. No default. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * A callback took longer than the session's `callbackTimeout`; it was interrupted and the CLI was answered
 * with this message (as a deny for `canUseTool`).
 *
 * @since 0.1.0
 * @category errors
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
 * The handler of a session's incoming requests: each callback runs with `context` and, when `callbacks.timeout`
 * is set, fails with {@link CallbackTimeout} once it has run that long. Every request gets an answer: when a
 * callback fails, times out, returns the wrong kind of value or an answer that cannot be written as JSON, the
 * CLI gets a deny (`canUseTool`), a hook error or an MCP error result, and `report` gets a `CallbackFailed`.
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
        const joined = Fiber.join(fiber)
        const answer = timeout === undefined ? joined : joined.pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () => Effect.fail(new CallbackTimeout({ callback, timeoutMillis: Duration.toMillis(timeout) }))
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
  return (request) => {
    switch (request._tag) {
      case "CanUseToolRequest":
        return canUseTool === undefined
          ? Effect.fail(new Error("no canUseTool callback is registered"))
          // The deadline is inside the decision, so that a late callback is a deny like a failed one.
          : Permission.decide((tool, input, ctx) =>
            reporting(
              "canUseTool",
              run("canUseTool", Effect.suspend(() => Callback.effectOf<Permission.Decision>("canUseTool", canUseTool(tool, input, ctx))))
            ), request).pipe(
              Effect.flatMap((answer) =>
                writable("canUseTool", answer, (detail) =>
                  Effect.succeed(Permission.toResponse(Permission.deny(`Permission callback failed: ${detail}`), request)))
              )
            )
      case "HookCallbackRequest": {
        const hook = `the ${request.input.hook_event_name ?? "hook"} hook`.replace("hook hook", "hook")
        return reporting(hook, run(hook, Hooks.run(hooks, request))).pipe(
          Effect.flatMap((output) =>
            writable(hook, output, (detail) => Effect.fail(new Error(`${hook} failed: ${detail}`)))
          )
        )
      }
      case "McpMessageRequest": {
        const server = mcpServers?.find((s) => s.name === request.server_name)
        const message = request.message as McpServer.JsonRpcMessage
        if (server === undefined) return Effect.fail(new Error(`unknown MCP server ${request.server_name}`))
        const callback = `the MCP server "${server.name}"`
        return reporting(callback, run(callback, McpServer.handle(server, message))).pipe(
          // A tool that could not answer: the model gets an error result naming why.
          Effect.catchIf(
            (error): error is McpServer.InvalidResult => error instanceof McpServer.InvalidResult,
            (error) => Effect.succeed(McpServer.reply(message.id, { result: McpServer.errorResult(error.message) }))
          ),
          Effect.map((mcp_response) => ({ mcp_response }))
        )
      }
      default:
        return Effect.fail(new Protocol.UnsupportedRequest({ subtype: request.subtype }))
    }
  }
}
