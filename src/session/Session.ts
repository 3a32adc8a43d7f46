/**
 * A long-lived CLI process driven over stream-json stdin: several turns, interrupts, permission callbacks,
 * hooks and in-process MCP tools through the control protocol. The process ends with the session's Scope.
 *
 * Output is decoded strictly into the library's typed `Message`s; control frames stay inside the session.
 * A line that does not decode ends the session: `messages` fails with a `ClaudeCliError` (`DecodeFailed`,
 * `LineTooLong`) and the CLI is terminated, since nothing after it could be trusted.
 *
 * Turns run one at a time and a session can be shared by several fibers. The output buffer is bounded
 * (`bufferSize`): a consumer that does not read leaves the CLI blocked on its pipe, including its control
 * requests, so read `messages` (or run turns) while the session is in use.
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
import type * as CliError from "../ClaudeCliError.ts"
import * as Process from "../layers/Process.ts"
import * as QueryOptions from "../QueryOptions.ts"
import type * as Control from "../schema/Control.ts"
import type * as Schema from "../schema/Message.ts"
import * as Decode from "../stream/Decode.ts"
import type * as Ndjson from "../stream/Ndjson.ts"
import * as Hooks from "./Hooks.ts"
import * as Incoming from "./Incoming.ts"
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
 * @since 0.1.0
 * @category models
 */
export interface Options extends QueryOptions.QueryOptions {
  /** Asked before each tool use the CLI's rules do not settle. Adds `--permission-prompt-tool stdio`. */
  readonly canUseTool?: Permission.CanUseTool | undefined
  readonly hooks?: Hooks.Hooks | undefined
  /** In-process MCP servers; their tools are `mcp__<server>__<tool>`. */
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer> | undefined
  /** Default `"claude"`. */
  readonly executable?: string | undefined
  /** Time between SIGTERM and SIGKILL, and how long `close` waits for the CLI to exit. Default 3 s. */
  readonly killGracePeriod?: Duration.Input | undefined
  /** Default timeout of a control request. Default 60 s. */
  readonly controlTimeout?: Duration.Input | undefined
  /** How long an interrupted turn may take to end before the CLI is terminated. Default 10 s. */
  readonly interruptTimeout?: Duration.Input | undefined
  /** Messages read ahead of the consumer; beyond it the CLI is paced through its pipe. Default 64. */
  readonly bufferSize?: number | undefined
  /** Longest stdout line accepted. Default 64 MiB. */
  readonly maxLineBytes?: number | undefined
}

/**
 * Why a session's output stream failed: the session (closed, interrupted by force) or the CLI (exited,
 * wrote a line that does not decode).
 *
 * @since 0.1.0
 * @category errors
 */
export type StreamError = SessionError.SessionError | CliError.ClaudeCliError

/**
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly pid: number
  /** The `initialize` response: commands, agents, models, account, ... */
  readonly initialization: Readonly<Record<string, unknown>>
  /** The session id, known once the CLI has written its `system/init` message (after the first send). */
  readonly sessionId: Effect.Effect<string, SessionError.SessionError>
  /** Writes a user message. Safe from several fibers: each message is written whole. */
  readonly send: (content: UserContent.UserContent) => Effect.Effect<void, SessionError.SessionError>
  /** All output messages, control frames excluded. Shares one bounded buffer with `turn`. */
  readonly messages: Stream.Stream<Message, StreamError>
  /** Sends a prompt and streams that turn's messages up to and including its `result`. Turns run one at a time. */
  readonly turn: (content: UserContent.UserContent) => Stream.Stream<Message, StreamError>
  /**
   * Interrupts the running turn. If the CLI does not end it within `interruptTimeout`, the CLI is terminated:
   * this fails with `InterruptTimeout`, and so does the turn's stream.
   */
  readonly interrupt: Effect.Effect<void, SessionError.SessionError>
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

const invalid = (description: string) => Effect.fail(SessionError.make(new SessionError.InvalidOptions({ description })))

// Flags the session sets itself; given again through `extraArgs` they would contradict it.
const reservedFlags = ["-p", "--print", "--input-format", "--output-format"]

const checkOptions = (options: Options): Effect.Effect<void, SessionError.SessionError> => {
  const extra = options.extraArgs ?? []
  const reserved = extra.find((a) => reservedFlags.includes(a.split("=")[0]))
  if (reserved !== undefined) return invalid(`${reserved} is set by the session and cannot be given in extraArgs`)
  if (options.canUseTool !== undefined) {
    if (extra.some((a) => a.startsWith("--permission-prompt-tool"))) {
      return invalid("canUseTool cannot be combined with --permission-prompt-tool in extraArgs")
    }
    if (options.permissionMode === "bypassPermissions" || options.permissionMode === "dontAsk") {
      return invalid(`canUseTool is never called with permissionMode "${options.permissionMode}"`)
    }
  }
  if (options.forkSession === true && options.resume === undefined && options.continue !== true) {
    return invalid("forkSession needs resume or continue")
  }
  if (options.resume !== undefined && options.continue === true) return invalid("resume and continue exclude each other")
  const names = (options.mcpServers ?? []).map((s) => s.name)
  const duplicate = names.find((n, i) => names.indexOf(n) !== i)
  return duplicate === undefined ? Effect.void : invalid(`two MCP servers are named "${duplicate}"`)
}

/**
 * The CLI arguments of a session: stream-json both ways, plus the permission prompt tool and the in-process
 * MCP servers. Fails with `InvalidOptions` on options that cannot work together.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toArgs = (options: Options): Effect.Effect<ReadonlyArray<string>, SessionError.SessionError> =>
  Effect.map(checkOptions(options), () => {
    const base = QueryOptions.toArgs(options)
    const at = base.indexOf("--input-format")
    const args = [...base.slice(0, at + 1), "stream-json", ...base.slice(at + 2)]
    if (options.canUseTool !== undefined) args.push("--permission-prompt-tool", "stdio")
    const names = (options.mcpServers ?? []).map((s) => s.name)
    if (names.length > 0) {
      args.push("--mcp-config", JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { type: "sdk", name: n }])) }))
    }
    return args
  })

const encoder = new TextEncoder()

/**
 * Starts the CLI, runs the `initialize` handshake and returns the session. The process ends with the Scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}): Effect.fn.Return<
  Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner
> {
  const args = yield* toArgs(options)
  const executable = options.executable ?? Process.defaultExecutable
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const killGracePeriod = options.killGracePeriod ?? Duration.seconds(3)
  const stdin = yield* Queue.bounded<Uint8Array, Cause.Done>(options.bufferSize ?? 64)
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
  const closedError = (operation: string, exitCode?: number | null) =>
    SessionError.make(new SessionError.SessionClosed({
      operation,
      stderrTail: cli.stderrTail(),
      ...(exitCode === undefined ? {} : { exitCode })
    }))

  const write = (frame: Record<string, unknown>) =>
    Queue.offer(stdin, encoder.encode(JSON.stringify(frame) + "\n")).pipe(
      Effect.flatMap((ok) => ok ? Effect.void : Effect.fail(closedError(`write a ${String(frame.type)} frame`)))
    )

  const hooks = Hooks.register(options.hooks)
  const protocol = yield* Protocol.make({
    write,
    handler: Incoming.handler({
      canUseTool: options.canUseTool,
      hooks,
      mcpServers: options.mcpServers
    }),
    defaultTimeout: options.controlTimeout
  })

  const output = yield* Queue.bounded<Message, StreamError | Cause.Done>(options.bufferSize ?? 64)
  const sessionIdKnown = yield* Deferred.make<string, SessionError.SessionError>()
  let sessionId = ""
  let turnEnded = yield* Deferred.make<void>()
  // Set when the session ends the CLI by force, so that the output fails with why.
  let forced: SessionError.SessionError | undefined

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
    if (message.type === "result") Deferred.doneUnsafe(turnEnded, Exit.void)
    return Effect.asVoid(Queue.offer(output, message))
  }

  yield* Effect.forkScoped(Effect.gen(function*() {
    const read = yield* Process.output(cli, { executable, maxLineBytes: options.maxLineBytes }).pipe(
      Stream.runForEach(route),
      Effect.exit
    )
    // Output that cannot be read (a bad line) leaves nothing to drive the CLI with.
    if (Exit.isFailure(read) && forced === undefined) yield* terminate
    const status = yield* cli.exitStatus
    const closed = closedError("continue", status.exitCode)
    yield* protocol.closeWith(closed)
    yield* Queue.end(stdin)
    yield* Deferred.fail(sessionIdKnown, closed)
    yield* Deferred.succeed(turnEnded, undefined)
    if (forced !== undefined) yield* Queue.fail(output, forced)
    else if (Exit.isSuccess(read)) yield* Queue.end(output)
    else yield* Queue.failCause(output, read.cause)
  }))

  const initialization = yield* protocol.request({
    subtype: "initialize",
    ...(hooks.wire === undefined ? {} : { hooks: hooks.wire }),
    ...(options.mcpServers === undefined ? {} : { sdkMcpServers: options.mcpServers.map((s) => s.name) })
  })

  const send = (content: UserContent.UserContent) =>
    Effect.suspend(() => {
      turnEnded = Deferred.makeUnsafe<void>()
      return write(UserContent.toFrame(content, sessionId))
    })

  // One message per pull: a reader that stops after a turn's result leaves the next message in the buffer.
  const messages = Stream.fromPull(Effect.succeed(Effect.map(Queue.take(output), (m) => [m] as const)))
  const turnLock = yield* Semaphore.make(1)
  // Turns whose reader stopped before their result: what is left of them is dropped by the next turn.
  let unfinished = 0
  const dropUnfinished: Effect.Effect<void, StreamError> = Effect.suspend(() =>
    unfinished === 0 ? Effect.void : Queue.take(output).pipe(
      Effect.flatMap((m) => {
        if (m.type === "result") unfinished--
        return dropUnfinished
      }),
      // The output ended: there is nothing left to drop, and the send that follows reports why.
      Effect.catchIf(Cause.isDone, () => Effect.sync(() => void (unfinished = 0)))
    )
  )
  const turn = (content: UserContent.UserContent) =>
    Stream.unwrap(Effect.gen(function*() {
      yield* turnLock.takeScoped(1)
      yield* dropUnfinished
      yield* send(content)
      let finished = false
      yield* Effect.addFinalizer(() => Effect.sync(() => void (finished || unfinished++)))
      return messages.pipe(Stream.takeUntil((m) => (finished = m.type === "result")))
    }))

  const interruptTimeout = Duration.fromInputUnsafe(options.interruptTimeout ?? Duration.seconds(10))
  const forceEnd = Effect.suspend(() => {
    const error = SessionError.make(
      new SessionError.InterruptTimeout({ timeoutMillis: Duration.toMillis(interruptTimeout) })
    )
    forced ??= error
    return Effect.andThen(terminate, Effect.fail(error))
  })
  // One deadline for both the CLI's answer and the end of the turn.
  const interrupt = Effect.suspend(() => {
    const ended = turnEnded
    return protocol.request({ subtype: "interrupt" }, { timeout: Duration.infinity }).pipe(
      Effect.andThen(Deferred.await(ended)),
      Effect.timeoutOrElse({ duration: interruptTimeout, orElse: () => forceEnd })
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
    initialization: initialization as Readonly<Record<string, unknown>>,
    sessionId: Deferred.await(sessionIdKnown),
    send,
    messages,
    turn,
    interrupt,
    setPermissionMode: (mode) => Effect.asVoid(protocol.request({ subtype: "set_permission_mode", mode })),
    setModel: (model) => Effect.asVoid(protocol.request({ subtype: "set_model", model: model ?? "default" })),
    request: protocol.request,
    close
  }
})
