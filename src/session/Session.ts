/**
 * A long-lived CLI process driven over stream-json stdin: several turns, interrupts, permission callbacks,
 * hooks and in-process MCP tools through the control protocol. The process ends with the session's Scope.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Cause from "effect/Cause"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as CliError from "../ClaudeCliError.ts"
import * as Process from "../layers/Process.ts"
import * as QueryOptions from "../QueryOptions.ts"
import * as Ndjson from "../stream/Ndjson.ts"
import * as Hooks from "./Hooks.ts"
import * as McpServer from "./McpServer.ts"
import * as Permission from "./Permission.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionError from "./SessionError.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<QueryOptions.QueryOptions, "maxTurns"> {
  readonly maxTurns?: number | undefined
  /** Asked before each tool use the CLI's rules do not settle. Adds `--permission-prompt-tool stdio`. */
  readonly canUseTool?: Permission.CanUseTool | undefined
  readonly hooks?: Hooks.Hooks | undefined
  /** In-process MCP servers; their tools are `mcp__<server>__<tool>`. */
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer> | undefined
  /** Default `"claude"`. */
  readonly executable?: string | undefined
  /** Time between SIGTERM and SIGKILL. Default 3 s. */
  readonly killGracePeriod?: Duration.Input | undefined
  /** Default timeout of a control request. Default 60 s. */
  readonly controlTimeout?: Duration.Input | undefined
  /** How long an interrupted turn may take to end before the CLI is terminated. Default 10 s. */
  readonly interruptTimeout?: Duration.Input | undefined
  /** Messages read ahead of the consumer; beyond it the CLI is paced through its pipe. Default 64. */
  readonly bufferSize?: number | undefined
}

/**
 * A stream-json message written by the CLI (`system`, `assistant`, `user`, `result`, `stream_event`, ...).
 *
 * @since 0.1.0
 * @category models
 */
export type Message = Readonly<Record<string, unknown>> & { readonly type: string }

/**
 * What a user message holds: text, or content blocks (`text`, `image` with a base64 `source`, ...).
 *
 * @since 0.1.0
 * @category models
 */
export type UserContent = string | ReadonlyArray<Readonly<Record<string, unknown>>>

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
  readonly send: (content: UserContent) => Effect.Effect<void, SessionError.SessionError>
  /** All output messages, control frames excluded. Shares one bounded buffer with `turn`. */
  readonly messages: Stream.Stream<Message, SessionError.SessionError>
  /** Sends a prompt and streams that turn's messages up to and including its `result`. Turns run one at a time. */
  readonly turn: (content: UserContent) => Stream.Stream<Message, SessionError.SessionError>
  /** Interrupts the running turn; if it does not end within `interruptTimeout`, the CLI is terminated. */
  readonly interrupt: Effect.Effect<void, SessionError.SessionError>
  readonly setPermissionMode: (mode: QueryOptions.PermissionMode | "default") => Effect.Effect<void, SessionError.SessionError>
  /** `undefined` resets to the default model. */
  readonly setModel: (model: string | undefined) => Effect.Effect<void, SessionError.SessionError>
  /** Any other control request. */
  readonly request: Protocol.Protocol["request"]
  /** Ends stdin, waits for the CLI to exit (up to the kill grace period), then terminates it. */
  readonly close: Effect.Effect<void>
}

const invalid = (description: string) => SessionError.make(new SessionError.InvalidOptions({ description }))

/**
 * The CLI arguments of a session: stream-json both ways, plus the permission prompt tool and the in-process
 * MCP servers. Fails on options that cannot work together.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toArgs = (options: Options): Effect.Effect<ReadonlyArray<string>, SessionError.SessionError> =>
  Effect.suspend(() => {
    const extra = options.extraArgs ?? []
    if (options.canUseTool !== undefined) {
      if (extra.some((a) => a.startsWith("--permission-prompt-tool"))) {
        return Effect.fail(invalid("canUseTool cannot be combined with --permission-prompt-tool in extraArgs"))
      }
      if (options.permissionMode === "bypassPermissions") {
        return Effect.fail(invalid("canUseTool is never called with permissionMode \"bypassPermissions\""))
      }
    }
    const names = (options.mcpServers ?? []).map((s) => s.name)
    const duplicate = names.find((n, i) => names.indexOf(n) !== i)
    if (duplicate !== undefined) return Effect.fail(invalid(`two MCP servers are named "${duplicate}"`))
    const base = QueryOptions.toArgs(options)
    const at = base.indexOf("--input-format")
    const args = [...base.slice(0, at + 1), "stream-json", ...base.slice(at + 2)]
    if (options.canUseTool !== undefined) args.push("--permission-prompt-tool", "stdio")
    if (names.length > 0) {
      args.push("--mcp-config", JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { type: "sdk", name: n }])) }))
    }
    return Effect.succeed(args)
  })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const makeHandler = (options: Options, hooks: Hooks.Registration): Protocol.Handler => (request) => {
  switch (request.subtype) {
    case "can_use_tool": {
      if (options.canUseTool === undefined) return Effect.fail(new Error("no canUseTool callback is registered"))
      if (typeof request.tool_name !== "string" || !isObject(request.input)) {
        return Effect.fail(new Error("can_use_tool request without tool_name or input"))
      }
      return Permission.decide(options.canUseTool, request as unknown as Permission.Request)
    }
    case "hook_callback": {
      const callback = hooks.callbacks.get(String(request.callback_id))
      if (callback === undefined) return Effect.fail(new Error(`unknown hook callback id ${String(request.callback_id)}`))
      return Effect.suspend(() =>
        callback(
          isObject(request.input) ? request.input : {},
          typeof request.tool_use_id === "string" ? request.tool_use_id : undefined
        )
      )
    }
    case "mcp_message": {
      const server = options.mcpServers?.find((s) => s.name === request.server_name)
      if (server === undefined) return Effect.fail(new Error(`unknown MCP server ${String(request.server_name)}`))
      return Effect.map(
        McpServer.handle(server, isObject(request.message) ? request.message : {}),
        (mcp_response) => ({ mcp_response })
      )
    }
    default:
      return Effect.fail(new Protocol.UnsupportedRequest({ subtype: String(request.subtype) }))
  }
}

const encoder = new TextEncoder()

/**
 * Starts the CLI, runs the `initialize` handshake and returns the session. The process ends with the Scope.
 *
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Session } from "effect-claude-code/session"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* Session.make({ model: "sonnet" })
 *   yield* Stream.runCollect(session.turn("Remember the number 7"))
 *   return yield* Stream.runCollect(session.turn("Which number?"))
 * }).pipe(Effect.scoped)
 * ```
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
  const { handle, stderrTail } = yield* Process.spawn(spawner, {
    executable,
    args,
    cwd: options.cwd,
    env: options.env,
    envMode: options.envMode,
    stdin: { stream: Stream.fromQueue(stdin), endOnDone: true },
    killGracePeriod
  })
  const closedError = (operation: string, exitCode?: number | null) =>
    SessionError.make(new SessionError.SessionClosed({
      operation,
      stderrTail: stderrTail(),
      ...(exitCode === undefined ? {} : { exitCode })
    }))

  const write = (frame: Record<string, unknown>) =>
    Queue.offer(stdin, encoder.encode(JSON.stringify(frame) + "\n")).pipe(
      Effect.flatMap((ok) => ok ? Effect.void : Effect.fail(closedError(`write a ${String(frame.type)} frame`)))
    )

  const hooks = Hooks.register(options.hooks)
  const protocol = yield* Protocol.make({
    write,
    handler: makeHandler(options, hooks),
    defaultTimeout: options.controlTimeout
  })

  const output = yield* Queue.bounded<Message, SessionError.SessionError | Cause.Done>(options.bufferSize ?? 64)
  const sessionId = yield* Deferred.make<string, SessionError.SessionError>()
  let turnEnded = yield* Deferred.make<void>()

  const route = (line: Ndjson.Line): Effect.Effect<void> =>
    Effect.suspend(() => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line.text)
      } catch {
        return Effect.logWarning(`Session: stdout line ${line.line} is not JSON: ${line.text.slice(0, 240)}`)
      }
      if (!isObject(parsed) || typeof parsed.type !== "string") {
        return Effect.logWarning(`Session: stdout line ${line.line} has no type`)
      }
      if (Protocol.isControlType(parsed.type)) {
        return Protocol.decodeFrame(parsed).pipe(
          Effect.flatMap(protocol.receive),
          Effect.catch((issue) => Effect.logWarning(`Session: bad control frame on line ${line.line}: ${issue.message}`))
        )
      }
      const message = parsed as Message
      if (message.type === "system" && message.subtype === "init" && typeof message.session_id === "string") {
        Deferred.doneUnsafe(sessionId, Effect.succeed(message.session_id))
      }
      if (message.type === "result") Deferred.doneUnsafe(turnEnded, Effect.void)
      return Queue.offer(output, message).pipe(Effect.asVoid)
    })

  yield* Effect.forkScoped(Effect.gen(function*() {
    const read = yield* Ndjson.lines(handle.stdout).pipe(Stream.runForEach(route), Effect.exit)
    const code = yield* handle.exitCode.pipe(
      Effect.map((c): number | null => c),
      Effect.orElseSucceed(() => null)
    )
    const error = closedError("continue", code)
    yield* protocol.closeWith(error)
    yield* Deferred.fail(sessionId, error)
    yield* Deferred.succeed(turnEnded, undefined)
    if (code === 0 && read._tag === "Success") yield* Queue.end(output)
    else yield* Queue.fail(output, error)
  }))

  const initialization = yield* protocol.request({
    subtype: "initialize",
    ...(hooks.wire === undefined ? {} : { hooks: hooks.wire }),
    ...(options.mcpServers === undefined ? {} : { sdkMcpServers: options.mcpServers.map((s) => s.name) })
  })

  const send = (content: UserContent) =>
    Effect.gen(function*() {
      turnEnded = yield* Deferred.make<void>()
      yield* write({
        type: "user",
        message: { role: "user", content },
        parent_tool_use_id: null,
        session_id: Deferred.isDoneUnsafe(sessionId) ? yield* Deferred.await(sessionId) : ""
      })
    })

  const messages = Stream.fromQueue(output)
  const turnLock = yield* Semaphore.make(1)
  const turn = (content: UserContent) =>
    Stream.unwrap(Effect.gen(function*() {
      yield* turnLock.takeScoped(1)
      yield* send(content)
      return messages.pipe(Stream.takeUntil((m) => m.type === "result"))
    }))

  const interruptTimeout = Duration.fromInputUnsafe(options.interruptTimeout ?? Duration.seconds(10))
  const interrupt = Effect.gen(function*() {
    const ended = turnEnded
    yield* protocol.request({ subtype: "interrupt" }, { timeout: interruptTimeout })
    yield* Deferred.await(ended).pipe(
      Effect.timeoutOrElse({
        duration: interruptTimeout,
        orElse: () =>
          Effect.andThen(
            handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGracePeriod }).pipe(Effect.ignore),
            Effect.fail(SessionError.make(
              new SessionError.InterruptTimeout({ timeoutMillis: Duration.toMillis(interruptTimeout) })
            ))
          )
      })
    )
  })

  const close = Effect.gen(function*() {
    yield* Queue.end(stdin)
    yield* handle.exitCode.pipe(
      Effect.ignore,
      Effect.timeoutOrElse({
        duration: killGracePeriod,
        orElse: () => handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGracePeriod }).pipe(Effect.ignore)
      })
    )
  })

  return {
    pid: handle.pid,
    initialization: isObject(initialization) ? initialization : {},
    sessionId: Deferred.await(sessionId),
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
