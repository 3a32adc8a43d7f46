/**
 * The session's side of the control protocol: the CLI's requests answered through the caller's callbacks
 * (`canUseTool`, hooks, in-process MCP servers, dialogs), and the errors recovered from on the way, kept for
 * the session's `errors` stream.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import type * as Dialogs from "../Dialogs.ts"
import type * as Hooks from "../Hooks.ts"
import * as McpServer from "../McpServer.ts"
import type * as CanUseTool from "../CanUseTool.ts"
import * as Protocol from "../Protocol.ts"
import * as SessionError from "../SessionError.ts"
import type * as Child from "./child.ts"
import * as Handler from "./handler.ts"
import * as HookRegistration from "./hookRegistration.ts"
import type * as Idle from "./idle.ts"

export interface Options extends Dialogs.Callbacks<unknown> {
  readonly canUseTool?: CanUseTool.CanUseTool<unknown> | undefined
  readonly hooks?: Hooks.Hooks<unknown> | undefined
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer<unknown>> | undefined
  readonly callbackTimeout?: Duration.Input | undefined
  readonly controlTimeout?: Duration.Input | undefined
}

export interface Callbacks {
  readonly protocol: Protocol.Protocol
  /** The errors recovered from, redacted. */
  readonly errors: PubSub.PubSub<SessionError.SessionError>
  readonly hooks: HookRegistration.Registration<unknown>
}

// How many recovered errors `errors` replays to a reader that comes late.
const errorsKept = 64

export const start = Effect.fnUntraced(function*(
  options: Options,
  context: Context.Context<unknown>,
  child: Child.Child,
  idle: Idle.Watchdog
): Effect.fn.Return<Callbacks, never, Scope.Scope> {
  // What the session recovered from without ending; the last ones are replayed to a late reader.
  const errors = yield* PubSub.sliding<SessionError.SessionError>({ capacity: errorsKept, replay: errorsKept })
  const report = (error: SessionError.SessionError) => Effect.asVoid(PubSub.publish(errors, child.redact(error)))
  const hooks = HookRegistration.register(options.hooks)
  const mcpServers = yield* Effect.forEach(
    options.mcpServers ?? [],
    (server) =>
      Effect.provideContext(
        McpServer.connect(server, (invalid) =>
          report(SessionError.make(
            new SessionError.CallbackFailed({ callback: `the MCP server "${server.name}"`, detail: invalid.message })
          ))),
        context
      )
  )
  const answer = Handler.handler({
    canUseTool: options.canUseTool,
    hooks,
    mcpServers,
    timeout: options.callbackTimeout,
    dialogs: options
  }, context, report)
  const protocol = yield* Protocol.make({
    write: child.write,
    // While a callback runs the CLI waits for us: that silence is not idleness.
    handler: (request) => idle.holding(answer(request)),
    defaultTimeout: options.controlTimeout,
    report
  })
  return { protocol, errors, hooks }
})
