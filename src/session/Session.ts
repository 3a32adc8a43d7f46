/**
 * A long-lived CLI process driven over stream-json stdin: several turns, interrupts, permission callbacks,
 * hooks and in-process MCP tools through the control protocol. The process ends with the session's Scope.
 *
 * Output is decoded strictly into the library's typed `Message`s; control frames stay inside the session, and
 * so do the CLI's acknowledgements of the session's own user messages (their replays and `command_lifecycle`
 * events, which the session asks for to know which turn each message went to). A line that does not decode
 * ends the session: the output fails with a `ClaudeCliError` (`DecodeFailed`, `LineTooLong`) and the CLI is
 * terminated, since nothing after it could be trusted.
 *
 * ## Readers, buffers and pacing
 *
 * The output is published to every reader: each `messages` stream and each running `turn` has its own
 * buffer of `bufferSize` messages and gets everything written after it subscribed (`messages` subscribes
 * when it starts running; `subscribe` does so at once, which avoids missing what a `send` causes). Nothing
 * is kept for readers that are not there: with no reader the output is dropped, and memory stays bounded.
 * A reader that falls `bufferSize` messages behind holds the others and the CLI, which then blocks on its
 * stdout pipe (its control requests included) until that reader catches up or its stream ends.
 *
 * ## Turns
 *
 * `turn` runs one at a time and a session can be shared by several fibers; `send` may be called from any of
 * them and writes each message whole. A message sent while a turn runs is handed to the model within that
 * turn (the CLI's own behaviour), so it gets no result of its own. `interrupt` ends the running turn, or
 * does nothing but tell the CLI when no turn runs. With `idleTimeout`, a CLI that owes output (a turn runs,
 * no callback is pending) and writes nothing for that long is terminated and the output fails with
 * `IdleTimeout`; silence between turns never counts.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Console, Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 * import { Hooks, Permission } from "effect-claude-code/session"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* ClaudeCli.session({
 *     model: "sonnet",
 *     // Asked before each tool use the CLI's own rules do not settle; a failure here is a deny, never a hang.
 *     canUseTool: (tool, input) =>
 *       Effect.succeed(
 *         tool === "Write" && String(input.file_path).endsWith(".env")
 *           ? Permission.deny("never touch .env files")
 *           : Permission.allow()
 *       ),
 *     hooks: { PreToolUse: [{ matcher: "Bash", hooks: [() => Effect.succeed(Hooks.block("no shell here"))] }] }
 *   })
 *   // Each turn streams typed messages up to and including its ResultMessage.
 *   yield* session.turn("Write a haiku about pipes to haiku.txt").pipe(
 *     Stream.runForEach((message) => message._tag === "AssistantMessage" ? Console.log(message.text) : Effect.void)
 *   )
 *   // The same process, so the second turn sees the first.
 *   const second = yield* Stream.runCollect(session.turn("Now translate it to French"))
 *   const result = second.at(-1)
 *   if (result?._tag === "ResultSuccess") yield* Console.log(result.result, result.total_cost_usd)
 * }).pipe(Effect.scoped, Effect.provide(Live.layer()))
 * ```
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { fromDecodeError } from "../ClaudeCli.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as Process from "../layers/Process.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import type * as Control from "../schema/Control.ts"
import type * as Schema from "../schema/Message.ts"
import * as Decode from "../stream/Decode.ts"
import type * as Ndjson from "../stream/Ndjson.ts"
import * as Hooks from "./Hooks.ts"
import * as Incoming from "./Incoming.ts"
import * as Initialization from "./Initialization.ts"
import * as Hub from "./internal/hub.ts"
import * as Idle from "./internal/idle.ts"
import * as Args from "./internal/options.ts"
import * as Turns from "./internal/turns.ts"
import type * as McpServer from "./McpServer.ts"
import type * as Permission from "./Permission.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionError from "./SessionError.ts"
import * as UserContent from "./UserContent.ts"

/**
 * A message of the session's output: any stream-json message but the control frames, which the session
 * answers itself.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Exclude<Schema.Message, Protocol.ControlFrame | Control.KeepAlive>

/**
 * How a session runs. `R` is what its callbacks need; `Session.make` takes it from its own context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> extends QueryOptions.QueryOptions {
  /** Asked before each tool use the CLI's rules do not settle. Adds `--permission-prompt-tool stdio`. */
  readonly canUseTool?: Permission.CanUseTool<R> | undefined
  /** Hooks by event, registered at `initialize` and called back over the control protocol. */
  readonly hooks?: Hooks.Hooks<R> | undefined
  /** In-process MCP servers; their tools are `mcp__<server>__<tool>`. */
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer<R>> | undefined
  /**
   * How long one callback (`canUseTool`, a hook, an MCP request) may run. Past it the callback is interrupted
   * and the CLI gets a deny or an error naming the timeout, so it never waits on a stuck callback. No default.
   */
  readonly callbackTimeout?: Duration.Input | undefined
  /**
   * Opt-in: when the CLI owes output (a turn runs and no callback is pending) and writes nothing for this
   * long, it is terminated and the output fails with `IdleTimeout`. Time between turns never counts. No default.
   */
  readonly idleTimeout?: Duration.Input | undefined
  /** Default `"claude"`. */
  readonly executable?: string | undefined
  /** Time between SIGTERM and SIGKILL, and how long `close` waits for the CLI to exit. Default 3 s. */
  readonly killGracePeriod?: Duration.Input | undefined
  /** Default timeout of a control request. Default 60 s. */
  readonly controlTimeout?: Duration.Input | undefined
  /** How long an interrupted turn may take to end before the CLI is terminated. Default 10 s. */
  readonly interruptTimeout?: Duration.Input | undefined
  /** Messages each reader may fall behind before the CLI is paced through its pipe. Default 64. */
  readonly bufferSize?: number | undefined
  /** Longest stdout line accepted. Default 64 MiB. */
  readonly maxLineBytes?: number | undefined
}

/**
 * The services the callbacks of some options need.
 *
 * @since 0.1.0
 * @category models
 */
export type Services<O> = O extends Options<infer R> ? [R] extends [never] ? never : unknown extends R ? never : R
  : never

/**
 * Why a session's output stream failed: the session (closed, interrupted by force) or the CLI (exited,
 * wrote a line that does not decode, went idle).
 *
 * @since 0.1.0
 * @category errors
 */
export type StreamError = SessionError.SessionError | CliError.ClaudeCliError

/**
 * A running session. Every operation may be used from several fibers at once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  /** The process the session started. */
  readonly pid: number
  /** The `initialize` response, typed: commands, agents, models, account, output styles, ... */
  readonly initialization: Initialization.Initialization
  /** The `initialize` response as the CLI wrote it. */
  readonly rawInitialization: Readonly<Record<string, unknown>>
  /** The session id, known once the CLI has written its `system/init` message (after the first send). */
  readonly sessionId: Effect.Effect<string, SessionError.SessionError>
  /** Writes a user message. Safe from several fibers: each message is written whole. */
  readonly send: (content: UserContent.UserContent) => Effect.Effect<void, SessionError.SessionError>
  /** All output written while the stream runs (control frames excluded), for any number of readers. */
  readonly messages: Stream.Stream<Message, StreamError>
  /** Subscribes now to all output: the stream gives every message written from this point on. */
  readonly subscribe: Effect.Effect<Stream.Stream<Message, StreamError>, never, Scope.Scope>
  /**
   * Sends a prompt and streams the messages of the turn that answers it, up to and including its `result`
   * (from the prompt's arrival, when it joins a turn already running). Turns run one at a time. If the
   * output ends first, the stream fails with `SessionClosed`.
   */
  readonly turn: (content: UserContent.UserContent) => Stream.Stream<Message, StreamError>
  /**
   * Interrupts the running turn and waits for it to end. If it does not end within `interruptTimeout`, the
   * CLI is terminated: this fails with `InterruptTimeout`, and so does the output. With no turn running, it
   * only sends the request (under `controlTimeout`).
   */
  readonly interrupt: Effect.Effect<void, SessionError.SessionError>
  /** Changes the permission mode from the next tool use on (`"default"` asks again). */
  readonly setPermissionMode: (
    mode: QueryOptions.PermissionMode | "default"
  ) => Effect.Effect<void, SessionError.SessionError>
  /** `undefined` resets to the default model. */
  readonly setModel: (model: string | undefined) => Effect.Effect<void, SessionError.SessionError>
  /** Any other control request. */
  readonly request: Protocol.Protocol["request"]
  /** Ends stdin, waits for the CLI to exit (up to the kill grace period), then terminates it. */
  readonly close: Effect.Effect<void>
}

/**
 * The CLI arguments of a session: stream-json both ways with the user messages replayed, plus the permission
 * prompt tool and the in-process MCP servers. Fails with `InvalidOptions` on options that cannot work together.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toArgs = (options: Options<unknown>): Effect.Effect<ReadonlyArray<string>, SessionError.SessionError> =>
  Args.toArgs(options)

/**
 * Starts the CLI, runs the `initialize` handshake and returns the session. The process ends with the Scope.
 * The callbacks run with the services of the context this effect runs in.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <O extends Options<any>>(options?: O): Effect.Effect<
  Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | Services<O>
> =>
  Effect.flatMap(
    Effect.context<Services<O>>(),
    (context) => start(options ?? {}, context as Context.Context<unknown>)
  )

const encoder = new TextEncoder()

interface Item extends Turns.Seen {
  readonly message: Message
  readonly visible: boolean
}

const start = Effect.fnUntraced(function*(
  options: Options<unknown>,
  context: Context.Context<unknown>
): Effect.fn.Return<
  Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner
> {
  const args = yield* Args.toArgs(options)
  const showReplays = Args.asksForReplays(options)
  const executable = options.executable ?? Process.defaultExecutable
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const killGracePeriod = options.killGracePeriod ?? Duration.seconds(3)
  const bufferSize = options.bufferSize ?? 64
  const stdin = yield* Queue.bounded<Uint8Array, Cause.Done>(bufferSize)
  const cli = yield* Process.spawn(spawner, {
    executable,
    args,
    cwd: options.cwd,
    env: options.env,
    envMode: options.envMode,
    stdin: { stream: Stream.fromQueue(stdin), endOnDone: true },
    killGracePeriod
  })
  const { handle } = cli
  const terminate = handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGracePeriod }).pipe(Effect.ignore)
  let exitCode: number | null | undefined
  const closedError = (operation: string) =>
    SessionError.make(new SessionError.SessionClosed({
      operation,
      stderrTail: cli.stderrTail(),
      ...(exitCode === undefined ? {} : { exitCode })
    }))

  const write = (frame: Record<string, unknown>) =>
    Queue.offer(stdin, encoder.encode(JSON.stringify(frame) + "\n")).pipe(
      Effect.flatMap((ok) => ok ? Effect.void : Effect.fail(closedError(`write a ${String(frame.type)} frame`)))
    )

  const turns = Turns.make()
  // Set when the session ends the CLI by force, so that the output fails with why.
  let forced: StreamError | undefined
  const forceEnd = <E extends StreamError>(error: E): Effect.Effect<never, E> =>
    Effect.suspend(() => {
      forced ??= error
      return Effect.andThen(terminate, Effect.fail(error))
    })

  let lastLine = 0
  const idle = Idle.make({
    timeout: options.idleTimeout,
    busy: turns.busy,
    onIdle: Effect.suspend(() =>
      forceEnd(CliError.make(
        new CliError.IdleTimeout({
          timeoutMillis: Duration.toMillis(Duration.fromInputUnsafe(options.idleTimeout!)),
          lastLine,
          stderrTail: cli.stderrTail()
        })
      ))
    ).pipe(Effect.ignore)
  })
  yield* Effect.forkScoped(idle.run)

  const hooks = Hooks.register(options.hooks)
  const answer = Incoming.handler({
    canUseTool: options.canUseTool,
    hooks,
    mcpServers: options.mcpServers,
    timeout: options.callbackTimeout
  }, context)
  const protocol = yield* Protocol.make({
    write,
    // While a callback runs the CLI waits for us: that silence is not idleness.
    handler: (request) => idle.holding(answer(request)),
    defaultTimeout: options.controlTimeout
  })

  const output = yield* Hub.make<Item, StreamError>(bufferSize)
  const sessionIdKnown = yield* Deferred.make<string, SessionError.SessionError>()
  let sessionId = ""

  // A control request that does not decode still gets an answer, so that the CLI never waits on it.
  const rejectUnreadable = (line: Ndjson.Line, error: Decode.DecodeError): Effect.Effect<void> | undefined => {
    try {
      const json = JSON.parse(line.text)
      return json?.type === "control_request" && typeof json.request_id === "string"
        ? protocol.reject(json.request_id, `invalid control request: ${error.detail}`)
        : undefined
    } catch {
      return undefined
    }
  }

  const route = (item: Ndjson.Line | Decode.DecodeError): Effect.Effect<void, CliError.ClaudeCliError> => {
    lastLine = item.line
    const decoded = Decode.isDecodeError(item) ? item : Decode.decodeLine(item)
    if (Decode.isDecodeError(decoded)) {
      return (Decode.isDecodeError(item) ? undefined : rejectUnreadable(item, decoded)) ??
        Effect.fail(fromDecodeError(decoded, cli.redact))
    }
    const message = decoded.message
    if (Protocol.isControlFrame(message)) return protocol.receive(message)
    if (message._tag === "KeepAlive") return Effect.void
    if (message._tag === "SystemInit") {
      sessionId = message.session_id
      Deferred.doneUnsafe(sessionIdKnown, Exit.succeed(sessionId))
    }
    const seen = turns.observe(message)
    // Acknowledgements of our own messages are the session's, unless the caller asked for the replays.
    const visible = !seen.acknowledgement || (seen.replayOf !== undefined && showReplays)
    return output.publish({ ...seen, message, visible })
  }

  yield* Effect.forkScoped(Effect.gen(function*() {
    const read = yield* Process.output(cli, { executable, maxLineBytes: options.maxLineBytes }).pipe(
      idle.reading,
      Stream.runForEach(route),
      Effect.exit
    )
    // Output that cannot be read (a bad line) leaves nothing to drive the CLI with.
    if (Exit.isFailure(read) && forced === undefined) yield* terminate
    exitCode = (yield* cli.exitStatus).exitCode
    const closed = closedError("continue")
    yield* protocol.closeWith(closed)
    yield* Queue.end(stdin)
    yield* Deferred.fail(sessionIdKnown, closed)
    turns.close()
    yield* output.end(forced !== undefined ? Exit.fail(forced) : read)
  }))

  const rawInitialization = (yield* protocol.request({
    subtype: "initialize",
    ...(hooks.wire === undefined ? {} : { hooks: hooks.wire }),
    ...(options.mcpServers === undefined ? {} : { sdkMcpServers: options.mcpServers.map((s) => s.name) })
  })) as Readonly<Record<string, unknown>>
  const initialization = yield* Initialization.decode(rawInitialization)

  // One writer at a time, so that the turn tracking sees messages in the order the CLI reads them.
  const sendLock = yield* Semaphore.make(1)
  const sendTracked = (content: UserContent.UserContent) =>
    sendLock.withPermits(1)(Effect.suspend(() => {
      const uuid = crypto.randomUUID()
      const turn = turns.sent(uuid)
      idle.changed()
      return write(UserContent.toFrame(content, sessionId, uuid)).pipe(
        Effect.tapError(() => Effect.sync(() => turns.unsent(uuid))),
        Effect.as({ uuid, turn })
      )
    }))

  const visible = (items: Stream.Stream<Item, StreamError>) =>
    items.pipe(Stream.filter((item) => item.visible), Stream.map((item) => item.message))
  const subscribe = Effect.map(output.subscribe, visible)

  const turnLock = yield* Semaphore.make(1)
  const turn = (content: UserContent.UserContent) =>
    Stream.unwrap(Effect.gen(function*() {
      yield* turnLock.takeScoped(1)
      const items = yield* output.subscribe
      const sent = yield* sendTracked(content)
      // Unknown until the prompt's replay when it went to a CLI that was busy.
      let target = sent.turn
      let ended = false
      return items.pipe(
        Stream.filter((item) => {
          if (target === undefined && item.replayOf === sent.uuid) target = item.turn
          return item.visible && item.turn === target
        }),
        Stream.takeUntil((item) => (ended = item.message.type === "result")),
        Stream.map((item) => item.message),
        Stream.concat(Stream.suspend(() => ended ? Stream.empty : Stream.fail(closedError("finish the turn"))))
      )
    }))

  const interruptTimeout = Duration.fromInputUnsafe(options.interruptTimeout ?? Duration.seconds(10))
  const interrupt = Effect.suspend(() => {
    const running = turns.current()
    if (running === undefined) return Effect.asVoid(protocol.request({ subtype: "interrupt" }))
    // One deadline for both the CLI's answer and the end of the turn.
    return protocol.request({ subtype: "interrupt" }, { timeout: Duration.infinity }).pipe(
      Effect.andThen(turns.awaitEnd(running)),
      Effect.timeoutOrElse({
        duration: interruptTimeout,
        orElse: () =>
          forceEnd(SessionError.make(
            new SessionError.InterruptTimeout({ timeoutMillis: Duration.toMillis(interruptTimeout) })
          ))
      })
    )
  })

  const close = Effect.gen(function*() {
    yield* Queue.end(stdin)
    yield* handle.exitCode.pipe(
      Effect.ignore,
      Effect.timeoutOrElse({ duration: killGracePeriod, orElse: () => terminate })
    )
  })

  return {
    pid: handle.pid,
    initialization,
    rawInitialization,
    sessionId: Deferred.await(sessionIdKnown),
    send: (content) => Effect.asVoid(sendTracked(content)),
    messages: Stream.unwrap(subscribe),
    subscribe,
    turn,
    interrupt,
    setPermissionMode: (mode) => Effect.asVoid(protocol.request({ subtype: "set_permission_mode", mode })),
    setModel: (model) => Effect.asVoid(protocol.request({ subtype: "set_model", model: model ?? "default" })),
    request: protocol.request,
    close
  }
})
