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
 * import { Hooks, Permission } from "effect-claude-code/session"
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
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as ControlAnswer from "../schema/ControlAnswer.ts"
import * as CliError from "../ClaudeCliError.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import * as SessionMirror from "../store/SessionMirror.ts"
import type * as SessionStore from "../store/SessionStore.ts"
import * as Telemetry from "../Telemetry.ts"
import * as Controls from "./Controls.ts"
import type * as Dialogs from "./Dialogs.ts"
import type * as Hooks from "./Hooks.ts"
import * as Initialize from "./internal/initialize.ts"
import * as Answer from "./internal/answer.ts"
import * as Callbacks from "./internal/callbacks.ts"
import * as Child from "./internal/child.ts"
import * as Idle from "./internal/idle.ts"
import * as Interrupt from "./internal/interrupt.ts"
import * as Known from "./internal/known.ts"
import type * as Internal from "./internal/message.ts"
import * as Args from "./internal/options.ts"
import * as Output from "./internal/output.ts"
import type * as Route from "./internal/route.ts"
import * as Turns from "./internal/turns.ts"
import type * as McpServer from "./McpServer.ts"
import * as CanUseTool from "./CanUseTool.ts"
import type * as Protocol from "./Protocol.ts"
import type * as SessionError from "./SessionError.ts"
import type * as UserContent from "./UserContent.ts"

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
   * result. If the output ends first, the stream fails with `SessionClosed`. `uuid` names the prompt (as
   * `send` does): given, the caller knows it before it is sent, e.g. to `rewindFiles` to it later. `written` is
   * completed once the prompt is written (as a request's is).
   */
  readonly turn: (
    content: UserContent.UserContent,
    options?: {
      readonly uuid?: string | undefined
      readonly written?: Deferred.Deferred<void> | undefined
    }
  ) => Stream.Stream<Message, StreamError>
  /**
   * Runs `effect` with the session's writes held, then writes them to the CLI as one chunk, in the order they
   * were made: the CLI gets them at once, with none of its answers read between them (a spare's claim, its
   * model and its first prompt, as the SDK writes them in one go). A request or a turn started inside counts
   * as `written` once its frame is held; its answer comes after the chunk is written, so `effect` must not
   * wait for one. A call inside another joins the outer one.
   */
  readonly together: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SessionError.SessionError, R>
  /**
   * With a `sessionStore`: waits until the transcript entries the CLI wrote before the last message read are
   * appended to the store (or reported as `mirror_error`). Read a turn's `result`, then this: the store holds
   * the turn, so a runner that resumes the conversation elsewhere has it; it fails with the store's error
   * when an entry of the session was not stored (the store then lacks the turn). At once without a store.
   */
  readonly stored: Effect.Effect<void, SessionStore.SessionStoreError>
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

// The session, step by step: the CLI's arguments, the process, its watchdog and callbacks, the output, the
// handshake; then the operations over them.
const start = Effect.fnUntraced(function*(
  options: Options<unknown>,
  context: Context.Context<unknown>
): Effect.fn.Return<
  Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner
> {
  const { args, mirror } = yield* prepare(options)
  const child = yield* Child.spawn(options, args)
  const turns = yield* Turns.make
  const idle = yield* Idle.make({
    timeout: options.idleTimeout,
    busy: turns.busy,
    onIdle: (timeout) => Effect.ignore(Effect.flatMap(child.idleError(timeout), child.forceEnd))
  })
  yield* Effect.forkScoped(idle.run)
  const { errors, hooks, protocol } = yield* Callbacks.start(options, context, child, idle)
  const known = yield* Known.make
  const shut = shutting(child, protocol, turns, known)
  const close = Effect.andThen(child.stop, shut)
  const output = yield* Output.start({
    child,
    protocol,
    turns,
    idle,
    bufferSize: options.bufferSize ?? 64,
    maxLineBytes: options.maxLineBytes,
    showReplays: Args.asksForReplays(options),
    mirror,
    observe: known.observe,
    shut,
    close
  })
  // The answer comes through the output: read it ahead of slow readers, which may be the caller itself.
  const request: Protocol.Protocol["request"] = (body, opts) =>
    output.readingAhead(Effect.mapError(protocol.request(body, opts), child.redact))

  const initialize = request(
    Initialize.request(options, { hooks: hooks.wire, sdkMcpServers: options.mcpServers?.map((s) => s.name) })
  ).pipe(
    Effect.flatMap((raw) =>
      Effect.mapError(Answer.decode(ControlAnswer.Initialization, "initialize")(raw), child.redact).pipe(
        Effect.tap(known.initialized),
        Effect.map((decoded) => [raw as Readonly<Record<string, unknown>>, decoded] as const)
      )
    )
  )
  const [rawInitialization] = yield* initialize
  const controls = Controls.make(request)
  const { send, turn } = yield* sending(options, { child, turns, idle, known, output })
  const interrupt = (cancelQueued: boolean) =>
    Interrupt.make({
      cancelQueued,
      turns,
      request,
      readingAhead: output.readingAhead,
      timeout: Duration.fromInputUnsafe(options.interruptTimeout ?? Duration.seconds(10)),
      forceEnd: child.forceEnd,
      closed: child.closedError
    })
  const subscribe = Effect.map(output.subscribe, visible)

  return {
    ...controls,
    reloadPlugins: (options) =>
      Effect.tap(controls.reloadPlugins(options), (r) => known.update({ commands: r.commands, agents: r.agents })),
    reloadOutputStyles: Effect.tap(controls.reloadOutputStyles, (styles) => known.update({ available_output_styles: styles })),
    pid: child.cli.handle.pid,
    get initialization() {
      return known.initialization()
    },
    rawInitialization,
    reinitialize: Effect.map(initialize, ([, decoded]) => decoded),
    sessionId: known.awaitSessionId,
    send: (content) => Effect.map(send(content), (sent) => sent.uuid),
    messages: Stream.unwrap(subscribe),
    subscribe,
    turn,
    interrupt: interrupt(false),
    interruptAndCancelQueued: interrupt(true),
    setPermissionMode: controls.setPermissionMode,
    setModel: (model) => Effect.asVoid(request({ subtype: "set_model", model: model ?? "default" })),
    request,
    together: child.together,
    stored: output.stored,
    errors: Stream.fromPubSub(errors).pipe(Stream.interruptWhen(Deferred.await(child.closed))),
    close
  }
})

// Before the CLI starts: its arguments (the options are checked), and the session to resume from the store.
const prepare = Effect.fnUntraced(function*(options: Options<unknown>) {
  const args = yield* Args.toArgs(options)
  // As the SDK warns at `query`: a callback the CLI will not call for some tools.
  const shadowing = CanUseTool.shadowed(options)
  if (shadowing !== undefined) yield* Effect.logWarning(shadowing.message).pipe(Effect.annotateLogs({ code: shadowing.code }))
  const given = SessionMirror.target(options)
  const mirror = given === undefined ? undefined : yield* Effect.mapError(SessionMirror.restore(given, options.resume), CliError.make)
  return { args, mirror }
})

// Fails what waits on the CLI, and anything later, once the session ends, whatever ends it (the output,
// `close`, the scope): callers in fibers the scope does not own must not wait for what will never come. The
// first call does it (it completes `closed`); later ones find it done.
const shutting = (child: Child.Child, protocol: Protocol.Protocol, turns: Turns.Turns, known: Known.Known) =>
  Effect.flatMap(Deferred.succeed(child.closed, undefined), (first) =>
    first
      ? Effect.gen(function*() {
        yield* turns.close
        yield* protocol.closeWith(yield* child.closedError("complete a control request"))
        yield* child.endInput
        yield* known.fail(yield* child.closedError("learn the session id"))
      })
      : Effect.void)

const visible = (items: Stream.Stream<Route.Item, StreamError>) =>
  items.pipe(Stream.filter((item) => item.visible), Stream.map((item) => item.message))

// Writing user messages: `send`, and `turn`, which sends and streams the turn the message goes to.
const sending = Effect.fnUntraced(function*(options: Options<unknown>, session: {
  readonly child: Child.Child
  readonly turns: Turns.Turns
  readonly idle: Idle.Watchdog
  readonly known: Known.Known
  readonly output: Output.Output
}) {
  const { child, known, output, turns } = session
  // One writer at a time, so that the turn tracking sees messages in the order the CLI reads them.
  const sendLock = yield* Semaphore.make(1)
  const send = (content: UserContent.UserContent, uuid: string = crypto.randomUUID(), written?: Deferred.Deferred<void>) =>
    sendLock.withPermits(1)(Effect.gen(function*() {
      const sent = yield* turns.sent(uuid)
      yield* session.idle.changed
      const frame = userFrame(content, yield* known.sessionId, uuid)
      yield* child.write(options.verbatimPrompts === true ? { ...frame, client_composed: true } : frame).pipe(
        Effect.tapError(() => turns.unsent(uuid))
      )
      if (written !== undefined) yield* Deferred.succeed(written, undefined)
      return { uuid, sent }
    }))

  const turnLock = yield* Semaphore.make(1)
  const turnStream = (
    content: UserContent.UserContent,
    named: string | undefined,
    written: Deferred.Deferred<void> | undefined
  ) =>
    Stream.unwrap(Effect.gen(function*() {
      yield* turnLock.takeScoped(1)
      const items = yield* output.subscribe
      const { sent, uuid } = yield* send(content, named, written)
      const ended = yield* Ref.make(false)
      // Output that ends before the turn does cut it short.
      const cutShort = Effect.flatMap(Ref.get(ended), (done) =>
        done ? Effect.void : Effect.flatMap(child.closedError("finish the turn"), Effect.fail))
      return items.pipe(
        Turns.select(sent, uuid),
        Stream.tap((item) => item.ends || item.withdrawn === uuid ? Ref.set(ended, true) : Effect.void),
        visible,
        Stream.concat(Stream.fromEffectDrain(cutShort))
      )
    }))
  return {
    send,
    turn: (
      content: UserContent.UserContent,
      turnOptions?: { readonly uuid?: string | undefined; readonly written?: Deferred.Deferred<void> | undefined }
    ) => Telemetry.observeTurn(turnStream(content, turnOptions?.uuid, turnOptions?.written), options)
  }
})
