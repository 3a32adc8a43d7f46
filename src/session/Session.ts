/**
 * A long-lived CLI process driven over stream-json stdin: several turns, interrupts, permission callbacks,
 * hooks and in-process MCP tools through the control protocol. The process ends with the session's Scope.
 *
 * Every operation may be used from several fibers. How readers, turns, interrupts, callbacks and the end
 * behave: the README's "Sessions in detail".
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Console, Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 * import { CanUseTool, Hooks } from "effect-claude-code/session"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* ClaudeCli.session({
 *     model: "sonnet",
 *     // Asked before each tool use the CLI's own rules do not settle; a failure here is a deny, never a hang.
 *     canUseTool: (tool, input) =>
 *       Effect.succeed(
 *         tool === "Write" && String(input.file_path).endsWith(".env")
 *           ? CanUseTool.deny("never touch .env files")
 *           : CanUseTool.allow()
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
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as CliError from "../ClaudeCliError.ts"
import * as Process from "../Process.ts"
import * as SessionMirror from "../store/SessionMirror.ts"
import * as Telemetry from "../Telemetry.ts"
import * as QueryOptions from "../QueryOptions.ts"
import * as ControlAnswer from "../schema/ControlAnswer.ts"
import * as DerivedOptions from "../internal/queryOptions.ts"
import * as Hooks from "./Hooks.ts"
import * as Incoming from "./Incoming.ts"
import * as Answer from "./internal/answer.ts"
import * as Handover from "./internal/handover.ts"
import type * as Internal from "./internal/message.ts"
import * as Hub from "./internal/hub.ts"
import * as Idle from "./internal/idle.ts"
import * as Interrupt from "./internal/interrupt.ts"
import * as Args from "./internal/options.ts"
import * as Route from "./internal/route.ts"
import * as Turns from "./internal/turns.ts"
import * as Controls from "./Controls.ts"
import type * as Dialogs from "./Dialogs.ts"
import * as Initialize from "./internal/initialize.ts"
import * as McpServer from "./McpServer.ts"
import * as CanUseTool from "./CanUseTool.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionError from "./SessionError.ts"
import * as UserContent from "./UserContent.ts"
import * as CliErrorRedaction from "../internal/cliErrorRedaction.ts"
import * as TempDirs from "../internal/tempDirs.ts"
import { isDecodeError } from "../stream/DecodeError.ts"

/**
 * A message of the session's output: any stream-json message but the control frames, which the session
 * answers itself.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Internal.Message

/**
 * How a session runs. `R` is what its callbacks need; `Session.make` takes it from its own context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> extends QueryOptions.QueryOptions, Initialize.Options, Dialogs.Callbacks<R> {
  /** Asked before each tool use the CLI's rules do not settle. Adds `--permission-prompt-tool stdio`. */
  readonly canUseTool?: CanUseTool.CanUseTool<R> | undefined
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
  /** Arguments before the CLI's own (for an `executable` that wraps the CLI). */
  readonly executableArgs?: ReadonlyArray<string> | undefined
  /**
   * Every user message is delivered as written: no `@file` expansion, no slash commands (`client_composed`).
   * For prompts assembled from text the user did not type.
   */
  readonly verbatimPrompts?: boolean | undefined
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
export interface Session extends Controls.Controls {
  /** The process the session started. */
  readonly pid: number
  /**
   * The `initialize` response, typed: commands, agents, models, account, output styles, ... Kept current:
   * the CLI's `commands_changed` notices (a `reloadSkills` that finds new commands sends one) and the
   * results of `reloadPlugins`, `reloadOutputStyles` and `reinitialize` update it.
   */
  readonly initialization: ControlAnswer.Initialization
  /** The `initialize` response as the CLI wrote it. */
  readonly rawInitialization: Readonly<Record<string, unknown>>
  /**
   * Sends `initialize` again and gives the CLI's current answer (which `initialization` then holds). The
   * hooks are registered anew: a hook the CLI was waiting on is settled by the CLI itself.
   */
  readonly reinitialize: Effect.Effect<ControlAnswer.Initialization, SessionError.SessionError>
  /** The session id, known once the CLI has written its `system/init` message (after the first send). */
  readonly sessionId: Effect.Effect<string, SessionError.SessionError>
  /**
   * Writes a user message and gives its uuid (what `rewindFiles` and `cancelAsyncMessage` name it by). Safe
   * from several fibers: each message is written whole.
   */
  readonly send: (content: UserContent.UserContent) => Effect.Effect<string, SessionError.SessionError>
  /**
   * All output written while the stream runs (control frames excluded), for any number of readers. A reader
   * that stops pulling without ending its stream holds the CLI once `bufferSize` messages wait for it.
   */
  readonly messages: Stream.Stream<Message, StreamError>
  /**
   * Subscribes now to all output: the stream gives every message written from this point on. The
   * subscription lasts until its Scope closes, read or not: one that is not read stalls the whole session
   * after `bufferSize` messages, so subscribe in the scope of the reader.
   */
  readonly subscribe: Effect.Effect<Stream.Stream<Message, StreamError>, never, Scope.Scope>
  /**
   * Sends a prompt and streams the messages of the turn it goes to, up to and including its `result`: from
   * the turn's `system/init` when the prompt starts the turn (also after waiting in the CLI's queue), from
   * the prompt's arrival when it joins a turn already running. Turns run one at a time. A prompt withdrawn
   * before the CLI took it up (`cancelAsyncMessage`, `interruptAndCancelQueued`) ends the stream without a
   * result. If the output ends first, the stream fails with `SessionClosed`.
   */
  readonly turn: (content: UserContent.UserContent) => Stream.Stream<Message, StreamError>
  /**
   * Interrupts the running turn, or the one a prompt sent but not yet taken up will start, and waits for it
   * to end. If it does not end within `interruptTimeout`, the CLI is terminated: this fails with
   * `InterruptTimeout`, and so does the output. Readers that lag do not count against the deadline: the
   * session reads ahead of them meanwhile. With no turn running or owed, it only sends the request (under
   * `controlTimeout`). Answers the CLI's receipt: the uuids of the prompts still queued, which will run
   * (`undefined` from a CLI that gives none).
   */
  readonly interrupt: Effect.Effect<ControlAnswer.InterruptReceipt | undefined, SessionError.SessionError>
  /**
   * As `interrupt`, and withdraws every prompt still queued (`cancel_queued`): the receipt lists them under
   * `cancelled`; their turns end without a result. A CLI without `interrupt_cancel_queued_v1` ignores it.
   */
  readonly interruptAndCancelQueued: Effect.Effect<ControlAnswer.InterruptReceipt | undefined, SessionError.SessionError>
  /** `undefined` resets to the default model. */
  readonly setModel: (model: string | undefined) => Effect.Effect<void, SessionError.SessionError>
  /** Any other control request. */
  readonly request: Protocol.Protocol["request"]
  /**
   * The errors the session recovered from without ending, as they happen: a callback (`canUseTool`, a hook, an
   * MCP tool) that failed, timed out, returned the wrong kind of value or an answer that cannot be written as
   * JSON (`CallbackFailed`). The CLI was answered with a deny or an error for each, so the turn went on. A
   * reader also gets the last 64 from before it started; the stream ends when the session does.
   */
  readonly errors: Stream.Stream<SessionError.SessionError>
  /**
   * Ends stdin, waits for the CLI to exit (up to the kill grace period), then terminates it. Calls waiting on
   * the CLI then fail with `SessionClosed`; readers still get what the CLI wrote before it exited, then
   * `SessionClosed` if the turn was cut short (never the CLI's exit by the signal `close` sent).
   */
  readonly close: Effect.Effect<void>
}

// The stream-json line the CLI reads for a user message (without its newline). A `uuid` names the message in
// what the CLI writes about it (its replay, `command_lifecycle` events).
const userFrame = (content: UserContent.UserContent, sessionId: string, uuid?: string): Record<string, unknown> => ({
  type: "user",
  ...(uuid === undefined ? {} : { uuid }),
  message: { role: "user", content },
  parent_tool_use_id: null,
  session_id: sessionId
})

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

type Item = Route.Item

const start = Effect.fnUntraced(function*(
  options: Options<unknown>,
  context: Context.Context<unknown>
): Effect.fn.Return<
  Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner
> {
  const args = yield* Args.toArgs(options)
  // As the SDK warns at `query`: a callback the CLI will not call for some tools.
  const shadowing = CanUseTool.shadowed(options)
  if (shadowing !== undefined) yield* Effect.logWarning(shadowing.message).pipe(Effect.annotateLogs({ code: shadowing.code }))
  const given = SessionMirror.target(options)
  // Before the CLI starts: the session to resume, from the store.
  const mirrorTarget = given === undefined ? undefined : yield* Effect.mapError(SessionMirror.restore(given, options.resume), CliError.make)
  const showReplays = Args.asksForReplays(options)
  const executable = options.executable ?? Process.defaultExecutable
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const killGracePeriod = options.killGracePeriod ?? Duration.seconds(3)
  const bufferSize = options.bufferSize ?? 64
  const stdin = yield* Queue.bounded<Uint8Array, Cause.Done>(bufferSize)
  // Added before the spawn, so run after the CLI and its descendants are gone (they could write it again).
  const temp = TempDirs.track(DerivedOptions.environment(options), options.envMode !== "replace")
  yield* Effect.addFinalizer(() => temp.remove)
  const cli = yield* Process.spawn(spawner, {
    executable,
    args: [...(options.executableArgs ?? []), ...args],
    cwd: options.cwd,
    env: DerivedOptions.environment(options),
    envMode: options.envMode,
    onStderr: options.stderr,
    stdin: { stream: Stream.fromQueue(stdin), endOnDone: true },
    killGracePeriod
  })
  const { handle } = cli
  const terminate = handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGracePeriod }).pipe(Effect.ignore)
  let exitStatus: Process.ExitStatus | undefined
  const closedError = (operation: string) =>
    SessionError.make(new SessionError.SessionClosed({
      operation,
      stderrTail: cli.stderrTail(),
      ...(exitStatus === undefined ? {} : { exitCode: exitStatus.exitCode, ...(exitStatus.signal === null ? {} : { signal: exitStatus.signal }) })
    }))
  // Done once the session is closed: a write still waiting for room in stdin then fails instead of waiting on.
  const closed = yield* Deferred.make<void>()

  const write = (frame: Record<string, unknown>) =>
    Effect.try({
      try: () => encoder.encode(JSON.stringify(frame) + "\n"),
      catch: (error) =>
        SessionError.make(
          new SessionError.Unserializable({
            operation: `write a ${String(frame.type)} frame`,
            detail: error instanceof Error ? error.message : String(error)
          })
        )
    }).pipe(
      Effect.flatMap((bytes) => Effect.raceFirst(Queue.offer(stdin, bytes), Effect.as(Deferred.await(closed), false))),
      Effect.flatMap((ok) => ok ? Effect.void : Effect.fail(closedError(`write a ${String(frame.type)} frame`)))
    )

  const turns = Turns.make()
  // Set when the session ends the CLI by force, so that the output fails with why.
  let forced: StreamError | undefined
  // Set once `close` starts.
  let closing = false
  const forceEnd = <E extends StreamError>(error: E): Effect.Effect<never, E> =>
    Effect.suspend(() => {
      forced ??= error
      return Effect.andThen(terminate, Effect.fail(error))
    })

  let lastLine = 0
  const idle = Idle.make({
    timeout: options.idleTimeout,
    busy: turns.busy,
    onIdle: (timeout) => forceEnd(Process.idleTimeoutError(timeout, lastLine, cli.stderrTail())).pipe(Effect.ignore)
  })
  yield* Effect.forkScoped(idle.run)

  // What the session recovered from without ending; the last ones are replayed to a late reader.
  const errors = yield* PubSub.sliding<SessionError.SessionError>({ capacity: errorsKept, replay: errorsKept })
  const report = (error: SessionError.SessionError) => Effect.asVoid(PubSub.publish(errors, SessionError.redact(error, cli.redact)))
  const hooks = Hooks.register(options.hooks)
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
  const answer = Incoming.handler({
    canUseTool: options.canUseTool,
    hooks,
    mcpServers,
    timeout: options.callbackTimeout,
    dialogs: options
  }, context, report)
  const protocol = yield* Protocol.make({
    write,
    // While a callback runs the CLI waits for us: that silence is not idleness.
    handler: (request) => idle.holding(answer(request)),
    defaultTimeout: options.controlTimeout,
    report
  })

  const output = yield* Hub.make<Item, StreamError>(bufferSize)
  const handover = yield* Handover.make<Item, StreamError>()
  // Errors leave the session redacted of the secrets of its environment and options: the CLI's text may
  // quote them.
  const redact = <E extends StreamError>(error: E): E =>
    (CliError.isClaudeCliError(error) ? CliErrorRedaction.redact(error, cli.redact) : SessionError.redact(error, cli.redact)) as E
  // The answer comes through the output: read it ahead of slow readers, which may be the caller itself.
  const request: Protocol.Protocol["request"] = (body, opts) =>
    handover.readingAhead(Effect.mapError(protocol.request(body, opts), redact))
  const sessionIdKnown = yield* Deferred.make<string, SessionError.SessionError>()
  let sessionId = ""
  // Nothing until the CLI answers `initialize`.
  let initialization: ControlAnswer.Initialization = { commands: [], agents: [], models: [], available_output_styles: [] }

  // Fails what waits on the CLI, and anything later, once the session ends, whatever ends it (the output,
  // `close`, the scope): callers in fibers the scope does not own must not wait for what will never come.
  let isShut = false
  const shut = Effect.suspend(() => {
    if (isShut) return Effect.void
    isShut = true
    turns.close()
    return Effect.all([
      Deferred.succeed(closed, undefined),
      protocol.closeWith(closedError("complete a control request")),
      Queue.end(stdin),
      Deferred.fail(sessionIdKnown, closedError("learn the session id"))
    ], { discard: true })
  })

  // The `sessionStore` option: frames go to the store, not to readers; a failed append is a message of the
  // turn that was last seen, queued without waiting for a reader (that turn may have no reader left).
  let lastTurn = 0
  const mirroring = mirrorTarget === undefined ? undefined : yield* SessionMirror.start(mirrorTarget, (error) =>
    handover.readingAhead(handover.offer({
      turn: lastTurn,
      replayOf: undefined,
      takes: undefined,
      acknowledgement: false,
      ends: false,
      message: error,
      visible: true
    })))

  const route = Route.make({
    protocol,
    turns,
    showReplays,
    redact: cli.redact,
    onMessage: (message) => {
      if (message._tag === "SystemCommandsChanged") {
        initialization = { ...initialization, commands: message.commands }
        return
      }
      if (message._tag !== "SystemInit") return
      sessionId = message.session_id
      Deferred.doneUnsafe(sessionIdKnown, Exit.succeed(sessionId))
    },
    publish: (item) => {
      lastTurn = item.turn
      const frame = mirroring === undefined ? undefined : SessionMirror.frameOf(item.message)
      return frame === undefined ? handover.offer(item) : mirroring!.offer(frame)
    }
  })

  yield* Effect.forkScoped(Effect.gen(function*() {
    const read = yield* Process.output(cli, { executable, maxLineBytes: options.maxLineBytes }).pipe(
      idle.reading,
      Stream.runForEach((line) => {
        lastLine = line.line
        if (!isDecodeError(line)) temp.see(line)
        return route(line)
      }),
      Effect.exit
    )
    // Output that cannot be read (a bad line) leaves nothing to drive the CLI with.
    if (Exit.isFailure(read) && forced === undefined) yield* terminate
    exitStatus = yield* cli.exitStatus
    if (mirroring !== undefined) yield* mirroring.end
    yield* shut
    // The output ends once the last frames are stored or reported: their mirror_errors are messages too.
    if (mirroring !== undefined) yield* mirroring.done
    // A CLI that `close` ended (or that failed once closing began) was closed by this side, not failing.
    const ended = forced !== undefined
      ? Exit.fail(forced)
      : closing && Exit.isFailure(read)
      ? Exit.fail(closedError("read more output"))
      : read
    yield* handover.end(Exit.mapError(ended, redact))
  }))
  yield* Effect.forkScoped(Effect.flatMap(Effect.exit(handover.drain(output.publish)), output.end))
  // Added last, so it runs first when the scope closes: readers end with what they have buffered, then
  // SessionClosed, and every call fails with it.
  yield* Effect.addFinalizer(() => Effect.andThen(shut, output.end(Exit.fail(closedError("read more output")))))

  const initialize = Effect.flatMap(
    request(Initialize.request(options, { hooks: hooks.wire, sdkMcpServers: options.mcpServers?.map((s) => s.name) })),
    (raw) =>
      Effect.map(
        Effect.mapError(Answer.decode(ControlAnswer.Initialization, "initialize")(raw), redact),
        (decoded) => [raw as Readonly<Record<string, unknown>>, (initialization = decoded)] as const
      )
  )
  const [rawInitialization] = yield* initialize
  const controls = Controls.make(request)
  const current = (update: Partial<ControlAnswer.Initialization>) =>
    Effect.sync(() => (initialization = { ...initialization, ...update }))

  // One writer at a time, so that the turn tracking sees messages in the order the CLI reads them.
  const sendLock = yield* Semaphore.make(1)
  const sendTracked = (content: UserContent.UserContent) =>
    sendLock.withPermits(1)(Effect.suspend(() => {
      const uuid = crypto.randomUUID()
      const sent = turns.sent(uuid)
      idle.changed()
      const frame = userFrame(content, sessionId, uuid)
      return write(options.verbatimPrompts === true ? { ...frame, client_composed: true } : frame).pipe(
        Effect.tapError(() => Effect.sync(() => turns.unsent(uuid))),
        Effect.as({ uuid, sent })
      )
    }))

  const visible = (items: Stream.Stream<Item, StreamError>) =>
    items.pipe(Stream.filter((item) => item.visible), Stream.map((item) => item.message))
  const subscribe = Effect.map(output.subscribe, visible)

  const turnLock = yield* Semaphore.make(1)
  const turn = (content: UserContent.UserContent) =>
    Telemetry.observeTurn(turnStream(content), options)
  const turnStream = (content: UserContent.UserContent) =>
    Stream.unwrap(Effect.gen(function*() {
      yield* turnLock.takeScoped(1)
      const items = yield* output.subscribe
      const { sent, uuid } = yield* sendTracked(content)
      let ended = false
      return items.pipe(
        Turns.select(sent, uuid),
        Stream.tap((item) => Effect.sync(() => (ended ||= item.ends || item.withdrawn === uuid))),
        visible,
        Stream.concat(Stream.suspend(() => ended ? Stream.empty : Stream.fail(closedError("finish the turn"))))
      )
    }))

  const interrupt = (cancelQueued: boolean) => Interrupt.make({
    cancelQueued,
    turns,
    request,
    readingAhead: handover.readingAhead,
    timeout: Duration.fromInputUnsafe(options.interruptTimeout ?? Duration.seconds(10)),
    forceEnd,
    closed: closedError
  })

  const close = Effect.gen(function*() {
    closing = true
    yield* Queue.end(stdin)
    const status = yield* cli.exitStatus.pipe(
      Effect.timeoutOrElse({ duration: killGracePeriod, orElse: () => Effect.andThen(terminate, cli.exitStatus) })
    )
    exitStatus = status
    // The CLI is gone: what waits on it fails now, even while readers still read what it wrote.
    yield* shut
  })

  // Runs before the session's other finalizers: the CLI ends, its last frames are stored or reported.
  if (mirroring !== undefined) yield* Effect.addFinalizer(() => Effect.andThen(close, mirroring.finish))

  return {
    ...controls,
    reloadPlugins: (options) =>
      Effect.tap(controls.reloadPlugins(options), (r) => current({ commands: r.commands, agents: r.agents })),
    reloadOutputStyles: Effect.tap(controls.reloadOutputStyles, (styles) => current({ available_output_styles: styles })),
    pid: handle.pid,
    get initialization() {
      return initialization
    },
    rawInitialization,
    reinitialize: Effect.map(initialize, ([, decoded]) => decoded),
    sessionId: Deferred.await(sessionIdKnown),
    send: (content) => Effect.map(sendTracked(content), (sent) => sent.uuid),
    messages: Stream.unwrap(subscribe),
    subscribe,
    turn,
    interrupt: interrupt(false),
    interruptAndCancelQueued: interrupt(true),
    setPermissionMode: controls.setPermissionMode,
    setModel: (model) => Effect.asVoid(request({ subtype: "set_model", model: model ?? "default" })),
    request,
    errors: Stream.fromPubSub(errors).pipe(Stream.interruptWhen(Deferred.await(closed))),
    close
  }
})

// How many recovered errors `errors` replays to a reader that comes late.
const errorsKept = 64
