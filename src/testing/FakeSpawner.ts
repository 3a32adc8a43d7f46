/**
 * A test double at the lowest seam: a `ChildProcessSpawner` that serves canned stdout, stderr and exit per
 * spawn and records every command (executable, args, cwd, env, stdin), or a spy that records what a real
 * spawner runs. Everything above it (process, decoding, `ClaudeCli`) is the real code.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect, Layer, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 * import { FakeSpawner } from "effect-claude-code/testing"
 *
 * const fake = FakeSpawner.layer({ stdout: [init, result].join("\n") + "\n" })
 * const program = Effect.gen(function*() {
 *   const messages = yield* ClaudeCli.query("-rf").pipe(Stream.runCollect)
 *   const [spawned] = yield* FakeSpawner.spawned
 *   // spawned.args, spawned.stdin === "-rf", spawned.env ...
 * }).pipe(Effect.provide(Live.layerWith().pipe(Layer.provideMerge(fake))))
 * ```
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { plainEnv } from "./internal/plainEnv.ts"

/**
 * What one fake process does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reply {
  /** stdout: one string, or chunks written one by one (to split lines or characters across reads). */
  readonly stdout?: string | ReadonlyArray<string | Uint8Array> | undefined
  readonly stderr?: string | undefined
  /** Default 0. */
  readonly exitCode?: number | undefined
  /** The process dies by this signal instead of exiting. */
  readonly signal?: NodeJS.Signals | undefined
  /** The spawn itself fails as Node reports it (no such executable, no permission). */
  readonly spawnError?: "NotFound" | "PermissionDenied" | undefined
}

/**
 * One spawn, as the code under test asked for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Spawned {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  /** The variables passed (`Redacted` values unwrapped), without the inherited ones. */
  readonly env: Readonly<Record<string, string>>
  readonly extendEnv: boolean
  /** What was written to stdin so far. */
  readonly stdin: string
  /** The fake pid, or the real one for {@link spy}. */
  readonly pid: number
}

/**
 * The record of spawns.
 *
 * @since 0.1.0
 * @category services
 */
export class FakeSpawner extends Context.Service<FakeSpawner, {
  readonly spawned: Effect.Effect<ReadonlyArray<Spawned>>
}>()("effect-claude-code/testing/FakeSpawner") {}

/**
 * Every spawn so far, in order.
 *
 * @since 0.1.0
 * @category accessors
 */
export const spawned: Effect.Effect<ReadonlyArray<Spawned>, never, FakeSpawner> = Effect.flatMap(
  Effect.service(FakeSpawner),
  (fake) => fake.spawned
)

const encoder = new TextEncoder()
const bytes = (chunk: string | Uint8Array) => typeof chunk === "string" ? encoder.encode(chunk) : chunk

interface Log {
  readonly entries: Array<{ spawned: Omit<Spawned, "stdin">; stdin: Array<Uint8Array> }>
  readonly service: FakeSpawner["Service"]
}

const makeLog = (): Log => {
  const entries: Log["entries"] = []
  const decoder = new TextDecoder()
  return {
    entries,
    service: {
      spawned: Effect.sync(() =>
        entries.map((entry) => ({ ...entry.spawned, stdin: decoder.decode(Buffer.concat(entry.stdin)) }))
      )
    }
  }
}

const standard = (command: ChildProcess.Command): ChildProcess.StandardCommand => {
  if (ChildProcess.isStandardCommand(command)) return command
  throw new Error("FakeSpawner: piped commands are not supported")
}

const describe = (command: ChildProcess.StandardCommand, pid: number): Omit<Spawned, "stdin"> => ({
  command: command.command,
  args: command.args.map(String),
  cwd: command.options.cwd,
  env: plainEnv(command.options.env),
  extendEnv: command.options.extendEnv ?? true,
  pid
})

const stdinStream = (command: ChildProcess.StandardCommand) => {
  const stdin = command.options.stdin
  const input = typeof stdin === "object" && "stream" in stdin ? stdin.stream : stdin
  return Stream.isStream(input) ? input : undefined
}

const spawnError = (reason: "NotFound" | "PermissionDenied", command: ChildProcess.StandardCommand) =>
  PlatformError.systemError({
    _tag: reason,
    module: "ChildProcess",
    method: "spawn",
    syscall: `spawn ${command.command}`,
    pathOrDescriptor: command.command,
    description: reason === "NotFound" ? "ENOENT" : "EACCES"
  })

const fakeHandle = (reply: Reply, pid: number, stdin: Array<Uint8Array>): ChildProcessSpawner.ChildProcessHandle => {
  const stdoutChunks = typeof reply.stdout === "string" ? [reply.stdout] : reply.stdout ?? []
  // One stream chunk per given chunk: each is a separate read, as from a pipe.
  // Not `fromArrays(...)`: spreading a recording cut into 7-byte reads overflows the call stack.
  const stdout = Stream.fromIterable(stdoutChunks.map(bytes), { chunkSize: 1 })
  const stderr = reply.stderr === undefined ? Stream.empty : Stream.make(bytes(reply.stderr))
  // Node's spawner reports a signal only in the text of the exit error; the process layer reads it from there.
  const exitCode = reply.signal === undefined
    ? Effect.succeed(ChildProcessSpawner.ExitCode(reply.exitCode ?? 0))
    : Effect.fail(PlatformError.systemError({
      _tag: "Unknown",
      module: "ChildProcess",
      method: "exitCode",
      description: `Process interrupted due to receipt of signal: '${reply.signal}'`
    }))
  return ChildProcessSpawner.makeHandle({
    pid: ChildProcessSpawner.ProcessId(pid),
    exitCode,
    isRunning: Effect.succeed(false),
    kill: () => Effect.void,
    stdin: Sink.forEach((chunk: Uint8Array) => Effect.sync(() => void stdin.push(chunk))),
    stdout,
    stderr,
    all: Stream.merge(stdout, stderr),
    getInputFd: () => Sink.drain,
    getOutputFd: () => Stream.empty,
    unref: Effect.succeed(Effect.void)
  })
}

/**
 * A spawner whose processes do what `reply` says (a function: per spawn, from the 0-based spawn index and
 * the command), plus the {@link FakeSpawner} record.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  reply: Reply | ((index: number, spawned: Omit<Spawned, "stdin">) => Reply)
): Layer.Layer<ChildProcessSpawner.ChildProcessSpawner | FakeSpawner> =>
  Layer.effectContext(Effect.sync(() => {
    const log = makeLog()
    const spawner = ChildProcessSpawner.make((command) =>
      Effect.gen(function*() {
        const cmd = standard(command)
        const index = log.entries.length
        const entry = { spawned: describe(cmd, 1_000_000 + index), stdin: [] as Array<Uint8Array> }
        log.entries.push(entry)
        const planned = typeof reply === "function" ? reply(index, entry.spawned) : reply
        if (planned.spawnError !== undefined) return yield* Effect.fail(spawnError(planned.spawnError, cmd))
        const input = stdinStream(cmd)
        if (input !== undefined) {
          yield* Effect.forkScoped(Stream.runForEach(input, (chunk) => Effect.sync(() => void entry.stdin.push(chunk))))
        }
        return fakeHandle(planned, entry.spawned.pid, entry.stdin)
      })
    )
    return Context.make(ChildProcessSpawner.ChildProcessSpawner, spawner).pipe(Context.add(FakeSpawner, log.service))
  }))

/**
 * Records what the provided (real) spawner runs, stdin included, with the real pids.
 *
 * @since 0.1.0
 * @category layers
 */
export const spy: Layer.Layer<
  ChildProcessSpawner.ChildProcessSpawner | FakeSpawner,
  never,
  ChildProcessSpawner.ChildProcessSpawner
> = Layer.effectContext(Effect.map(Effect.service(ChildProcessSpawner.ChildProcessSpawner), (real) => {
  const log = makeLog()
  const spawner = ChildProcessSpawner.make((command) => {
    const cmd = standard(command)
    const stdin: Array<Uint8Array> = []
    const input = stdinStream(cmd)
    const config = cmd.options.stdin
    const tap = (stream: Stream.Stream<Uint8Array, PlatformError.PlatformError>) =>
      Stream.tap(stream, (chunk) => Effect.sync(() => void stdin.push(chunk)))
    const tapped = input === undefined ? cmd : ChildProcess.make(cmd.command, cmd.args, {
      ...cmd.options,
      stdin: typeof config === "object" && "stream" in config ? { ...config, stream: tap(input) } : tap(input)
    })
    return Effect.tap(real.spawn(tapped), (handle) =>
      Effect.sync(() => void log.entries.push({ spawned: describe(cmd, handle.pid), stdin })))
  })
  return Context.make(ChildProcessSpawner.ChildProcessSpawner, spawner).pipe(Context.add(FakeSpawner, log.service))
}))
