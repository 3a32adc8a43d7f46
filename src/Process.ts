/**
 * Runs the real Claude Code CLI through `ChildProcessSpawner` and frames its stdout into numbered lines.
 *
 * {@link lines} is one run as a stream: lines arrive as their newline does, a bad exit, a kill or a silent
 * CLI ends the stream with a typed `ClaudeCliError`, and a stream that ends first stops the process.
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { ChildProcessSpawner as Spawner } from "effect/process/ChildProcessSpawner"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CliError from "./ClaudeCliError.ts"
import * as QueryOptions from "./QueryOptions.ts"
import * as DerivedOptions from "./internal/queryOptions.ts"
import * as Redaction from "./internal/redaction.ts"
import * as Guard from "./internal/guard.ts"
import { isJson } from "./stream/internal/json.ts"
import { type DecodeError, isDecodeError } from "./stream/DecodeError.ts"
import { cutRaw, redactCutAtEnd, withFields } from "./stream/internal/cut.ts"
import { applyStepper, type Stepper } from "./stream/internal/stepper.ts"
import * as Ndjson from "./stream/Ndjson.ts"
import * as CliErrorRedaction from "./internal/cliErrorRedaction.ts"

/**
 * How the CLI is started. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Executable name (looked up on `PATH`) or path. Default `"claude"`. */
  readonly executable?: string | undefined
  /** Arguments before the CLI's own (for an `executable` that wraps the CLI). */
  readonly executableArgs?: ReadonlyArray<string> | undefined
  /** Environment for every query; a query's own `env` wins. */
  readonly env?: Readonly<Record<string, string | Redacted.Redacted<string> | undefined>> | undefined
  /** `"merge"` (default) with the parent's environment, or `"replace"` it. A query's `envMode` wins. */
  readonly envMode?: "merge" | "replace" | undefined
  /** Time between SIGTERM and SIGKILL when a stream ends before the CLI does. Default 3 seconds. */
  readonly killGracePeriod?: Duration.Input | undefined
  /** How much of stderr errors keep. Default 8 KiB. */
  readonly stderrTailBytes?: number | undefined
  /** Longest stdout line accepted. Default `Ndjson.defaultMaxLineBytes` (64 MiB). */
  readonly maxLineBytes?: number | undefined
  /**
   * Opt-in: fail with `IdleTimeout` (and end the CLI) when the stream has waited this long for stdout
   * without a byte. Only time spent waiting for the CLI counts, never time the consumer takes. No default.
   */
  readonly idleTimeout?: Duration.Input | undefined
}

/**
 * How much of stderr errors keep when `stderrTailBytes` is not set: 8 KiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultStderrTailBytes = 8 * 1024

/**
 * How long a run waits in all, once the CLI has exited, for more output on a pipe before taking it as
 * drained: 500 ms. A process the CLI started (a tool, a helper of a wrapper script) may keep stdout or stderr
 * open, and even write to it, after the CLI is gone; the run ends all the same (the time counts in total, not
 * per silence; only time spent waiting on the pipe counts, so what the CLI wrote before its exit is all read),
 * and with a guarded spawner (see {@link guard}) every descendant of the CLI is ended with it.
 *
 * @since 0.1.0
 * @category constants
 */
export const drainGracePeriod: Duration.Duration = Duration.millis(500)

/**
 * The executable used when none is configured.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultExecutable = "claude"

/**
 * The end of what a process wrote to stderr, for errors.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tail {
  readonly push: (chunk: Uint8Array) => void
  /** At most the last `limit` bytes, secrets redacted; a tail that was cut starts with "…". */
  readonly text: () => string
}

const ellipsis = "…"
const encoder = new TextEncoder()
const decoder = new TextDecoder()

// The bytes from the first character that starts at or after `from` (a cut never shows half a character).
const fromCharacter = (bytes: Uint8Array, from: number): Uint8Array => {
  let start = Math.max(0, from)
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return bytes.subarray(start)
}

/**
 * Keeps the end of what is written to it. It holds twice `limit` bytes and redacts them before cutting to
 * `limit`, so that a secret straddling where the shown text starts is whole when it is redacted; the start
 * of the held bytes is a cut edge too (see `Redaction.Edges`). Without `redact`, only key-shaped values
 * are redacted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeTail = (limit: number, redact: Redaction.Redact = Redaction.redactor([])): Tail => {
  const hold = 2 * limit
  let chunks: Array<Uint8Array> = []
  let size = 0
  let dropped = false
  return {
    push: (chunk) => {
      chunks.push(chunk)
      size += chunk.length
      while (chunks.length > 1 && size - chunks[0]!.length >= hold) {
        size -= chunks[0]!.length
        chunks.shift()
        dropped = true
      }
    },
    text: () => {
      const all = Buffer.concat(chunks)
      chunks = [all]
      const cut = dropped || all.length > hold
      const held = redact(decoder.decode(cut ? fromCharacter(all, all.length - hold) : all), { start: cut })
      const bytes = encoder.encode(held)
      if (!cut && bytes.length <= limit) return held
      // Cut again, after redaction: the ellipsis counts towards the limit.
      const budget = limit - encoder.encode(ellipsis).length
      if (budget <= 0) return ""
      const shown = bytes.length <= budget ? held : redact(decoder.decode(fromCharacter(bytes, bytes.length - budget)), { start: true })
      return ellipsis + shown
    }
  }
}

const toSpawnError = (executable: string, cwd: string | undefined) =>
(error: PlatformError.PlatformError): CliError.ClaudeCliError => {
  const reason = error.reason
  // A capped spawner (CliSlots) that found no slot says why in the cause.
  if (reason.cause instanceof CliError.NoCliSlot) return CliError.make(reason.cause)
  if (reason._tag === "NotFound" && reason.method === "spawn") {
    return CliError.make(new CliError.ExecutableNotFound({ executable }))
  }
  if (reason._tag === "NotFound" && cwd !== undefined) {
    return CliError.make(
      new CliError.SpawnFailed({ executable, description: `working directory "${cwd}" does not exist`, cause: error })
    )
  }
  return CliError.make(new CliError.SpawnFailed({ executable, description: reason.message, cause: error }))
}

// Node reports a signal exit only in the text of the error the spawner builds.
const signalOf = (error: PlatformError.PlatformError): string | null => {
  const cause = "cause" in error.reason ? error.reason.cause : undefined
  return /signal: '?(SIG[A-Z0-9]+)'?/.exec(`${error.message} ${cause instanceof Error ? cause.message : ""}`)?.[1] ?? null
}

/**
 * How a CLI process ended: an exit code, or the signal that killed it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExitStatus {
  readonly exitCode: number | null
  readonly signal: string | null
}

/**
 * How to start one CLI process (see {@link spawn}).
 *
 * @since 0.1.0
 * @category models
 */
export interface SpawnOptions {
  readonly executable: string
  readonly args: ReadonlyArray<string>
  readonly cwd?: string | undefined
  readonly env?: Config["env"]
  readonly envMode?: Config["envMode"]
  readonly stdin: ChildProcess.CommandInput | ChildProcess.StdinConfig
  readonly killGracePeriod?: Duration.Input | undefined
  readonly stderrTailBytes?: number | undefined
  /** Redacts the process's secrets from its errors and stderr tail. Default: a redactor of its {@link secrets}. */
  readonly redact?: Redaction.Redact | undefined
  /** Called with stderr as it is written, decoded and redacted (besides the tail errors keep). */
  readonly onStderr?: ((text: string) => void) | undefined
}

/**
 * The W3C trace context of a span, as the CLI reads it from `TRACEPARENT` (and `TRACESTATE`): its OpenTelemetry
 * spans then join the caller's trace, and with its own tracing on (`CLAUDE_CODE_ENABLE_TELEMETRY`, an OTLP
 * exporter, `CLAUDE_CODE_PROPAGATE_TRACEPARENT`) its model requests carry that trace in their `traceparent`.
 *
 * @since 0.1.0
 * @category tracing
 */
export const traceparent = (span: { readonly traceId: string; readonly spanId: string; readonly sampled: boolean }) =>
  `00-${span.traceId.padStart(32, "0")}-${span.spanId.padStart(16, "0")}-${span.sampled ? "01" : "00"}`

// The current span's trace context for the CLI's environment, unless the caller set one.
const withTraceContext = (env: Config["env"]): Effect.Effect<Config["env"]> =>
  Effect.map(Effect.option(Effect.currentSpan), (span) =>
    span._tag === "None" || Object.keys(env ?? {}).some((k) => k.toUpperCase() === "TRACEPARENT")
      ? env
      : { ...env, TRACEPARENT: traceparent(span.value) })

/**
 * The secrets of one process: those of its environment (see `Redaction.environmentSecrets`) and of its
 * arguments (MCP headers, settings: see `Redaction.valueSecrets`).
 *
 * @since 0.1.0
 * @category redaction
 */
export const secrets = (options: Pick<SpawnOptions, "args" | "env" | "envMode">): ReadonlyArray<string> =>
  [...Redaction.environmentSecrets(options.env, options.envMode), ...Redaction.valueSecrets(options.args)]

/**
 * A started CLI process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly handle: ChildProcessSpawner.ChildProcessHandle
  /** The stderr tail so far, secrets redacted. */
  readonly stderrTail: () => string
  /** Redacts the process's secrets (and key-shaped values) from a text: see `SpawnOptions.redact`. */
  readonly redact: Redaction.Redact
  /** The stderr tail once the CLI has closed stderr. */
  readonly finalStderrTail: Effect.Effect<string>
  /** Completes with the clock time at which the CLI was seen to exit. */
  readonly exited: Effect.Effect<number>
  /** The clock time at which the CLI was seen to exit; `undefined` while it runs. */
  readonly exitTime: () => number | undefined
  readonly exitStatus: Effect.Effect<ExitStatus>
}

/**
 * Starts the CLI (never through a shell) with its stderr drained into a bounded tail from the start, so a
 * chatty CLI never blocks on a full stderr pipe. The process is ended with the Scope: SIGTERM to its process
 * group, SIGKILL after the grace period. Spawn failures are typed (`ExecutableNotFound`, `SpawnFailed`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const spawn = Effect.fnUntraced(function*(
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  options: SpawnOptions
): Effect.fn.Return<Running, CliError.ClaudeCliError, Scope.Scope> {
  const envMode = options.envMode ?? "merge"
  const redact = options.redact ?? Redaction.redactor(secrets(options))
  const env = yield* withTraceContext(options.env)
  // A spawn error may show the arguments: redacted here, for queries and sessions alike.
  const handle = yield* spawner.spawn(ChildProcess.make(options.executable, options.args, {
    cwd: options.cwd,
    env: envMode === "replace" ? env ?? {} : env,
    extendEnv: envMode === "merge",
    stdin: options.stdin,
    killSignal: "SIGTERM",
    forceKillAfter: options.killGracePeriod ?? Duration.seconds(3)
  })).pipe(Effect.mapError((error) => CliErrorRedaction.redact(toSpawnError(options.executable, options.cwd)(error), redact)))
  const tail = makeTail(options.stderrTailBytes ?? defaultStderrTailBytes, redact)
  const onStderr = options.onStderr
  const text = new TextDecoder()
  const stderrFiber = yield* Effect.forkScoped(
    Stream.runForEach(handle.stderr, (chunk) =>
      Effect.sync(() => {
        tail.push(chunk)
        // A throwing callback is the caller's bug; it must not stop the draining that keeps the CLI unblocked.
        if (onStderr !== undefined) {
          try {
            onStderr(redact(text.decode(chunk, { stream: true })))
          } catch {
            // ignored, see above
          }
        }
      })).pipe(Effect.ignore)
  )
  const stderrTail = tail.text
  let exitTime: number | undefined
  const exitFiber = yield* Effect.forkScoped(
    exited(handle).pipe(Effect.andThen(Clock.currentTimeMillis), Effect.tap((at) => Effect.sync(() => exitTime = at)))
  )
  return {
    handle,
    stderrTail,
    redact,
    // A descendant may hold stderr open after the CLI exited: the tail then ends at the drain grace period.
    // One deadline, counted from the exit (stderr is always read, so nothing of the CLI's is left by then).
    finalStderrTail: Effect.map(
      Effect.raceFirst(Fiber.join(stderrFiber), Effect.andThen(Fiber.join(exitFiber), Effect.sleep(drainGracePeriod))),
      stderrTail
    ),
    exited: Fiber.join(exitFiber),
    exitTime: () => exitTime,
    exitStatus: handle.exitCode.pipe(
      Effect.map((code): ExitStatus => ({ exitCode: code, signal: null })),
      Effect.catch((error) => Effect.succeed<ExitStatus>({ exitCode: null, signal: signalOf(error) }))
    )
  }
})

// Completes once the process has exited. `exitCode` also fails early when writing stdin failed (the CLI
// closed it): the process may still run and write, so its end is then watched for.
const exited = (handle: ChildProcessSpawner.ChildProcessHandle): Effect.Effect<void> =>
  handle.exitCode.pipe(
    Effect.ignore,
    Effect.andThen(Effect.orElseSucceed(handle.isRunning, () => false)),
    Effect.flatMap((running) => running ? Effect.andThen(Effect.sleep("50 millis"), exited(handle)) : Effect.void)
  )

// Once the CLI has exited, the stream ends when its pulls have waited on the pipe for `drainGracePeriod` in
// all: a total, so that a descendant writing now and then does not hold the run open for ever, and only time
// spent waiting, so that what the CLI wrote before its exit is read however slowly the consumer pulls. With
// `idle`, a pull fails when the CLI, still running, wrote nothing for that long. Only time spent waiting
// counts, never the time between pulls (a slow consumer).
const endWhenDrained = <A, R>(
  self: Stream.Stream<A, CliError.ClaudeCliError, R>,
  cli: Running,
  idle: { readonly timeout: Duration.Input; readonly onIdle: () => CliError.ClaudeCliError } | undefined
): Stream.Stream<A, CliError.ClaudeCliError, R> =>
  Stream.transformPull(self, (pull) => {
    const handle = cli.handle
    const grace = Duration.toMillis(drainGracePeriod)
    // Milliseconds pulls have waited since the exit.
    let waited = 0
    const waitedSince = (started: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const at = cli.exitTime()
        return at === undefined ? 0 : Math.max(0, now - Math.max(at, started))
      })
    const idleFail = idle === undefined ? Effect.never : Effect.sleep(idle.timeout).pipe(
      Effect.andThen(Effect.orElseSucceed(handle.isRunning, () => false)),
      // Once the CLI has exited, silence is a descendant holding the pipe: the drain ends the stream.
      Effect.flatMap((running) => running ? Effect.fail(idle.onIdle()) : Effect.never)
    )
    const timedPull = Effect.flatMap(Clock.currentTimeMillis, (started) => {
      const end = cli.exited.pipe(
        Effect.andThen(waitedSince(started)),
        Effect.flatMap((now) => Effect.sleep(Math.max(0, grace - waited - now))),
        Effect.andThen(Cause.done())
      )
      return Effect.raceAllFirst([pull, end, idleFail]).pipe(
        Effect.ensuring(Effect.map(waitedSince(started), (w) => {
          waited += w
        }))
      )
    })
    return Effect.succeed(timedPull)
  })

/**
 * The error of a CLI that wrote nothing on stdout for `timeout` (see `Config.idleTimeout`) after line
 * `lastLine` (0: none).
 *
 * @since 0.1.0
 * @category constructors
 */
export const idleTimeoutError = (timeout: Duration.Input, lastLine: number, stderrTail: string): CliError.ClaudeCliError =>
  CliError.make(new CliError.IdleTimeout({ timeoutMillis: Duration.toMillis(timeout), lastLine, stderrTail }))

// Behaviour under faults (each case tested against a real misbehaving process: `FaultCli`, see
// test/reliability/Faults.test.ts):
// - Non-zero exit: every completed message, then `ProcessExited` with the exit code and the last
//   `stderrTailBytes` (default 8 KiB) of stderr, redacted before the tail is cut so no piece of a secret
//   is left at its start. After an error result (max turns, API error) the CLI exits 1; `ClaudeCli.query`
//   then ends normally, the result saying what failed.
// - Killed by a signal: the same, with `signal` set and `exitCode` null.
// - Stopped mid-line: on a failed exit, a last unterminated line that is not whole JSON was cut; it is kept,
//   redacted, as the error's `cause`. On exit 0 it is decoded like any line.
// - Lines split across writes, pauses: a line is emitted as soon as its newline arrives.
// - The stream ends first (take, interruption, timeout): SIGTERM to the process group, SIGKILL after
//   `killGracePeriod` (default 3 s); the scope closes only once the process is gone.
// - Hangs with no output: only `idleTimeout` (no default) ends it, with `IdleTimeout`; the timer runs only
//   while the stream waits for the CLI, never because the consumer is slow.
// - Floods stdout: stdout is read only when the consumer pulls, so backpressure reaches the pipe; memory
//   stays bounded by the buffers plus one line (up to `maxLineBytes`).
// - Heavy stderr: always drained into a bounded tail, so it never blocks the CLI.
// - Never reads stdin: an unread prompt (even larger than the pipe) blocks nothing.
// - Exits while a process it started holds stdout or stderr open (and writes to it): once the CLI has exited
//   and pulls have waited `drainGracePeriod` in all, the pipe counts as drained, the run ends as the exit
//   says, and the rest of the group is ended; with a guarded spawner, every descendant of the CLI too.
// - The run ends (normally, by an error, an interruption, a signal to the bin): with a guarded spawner
//   (`guard`; `nodeSpawner` and so the Live and Scripted layers and the bin are), the CLI's process group and
//   every descendant recorded (tools in sessions of their own) get SIGTERM, SIGKILL after the kill grace
//   period, and the run's scope waits until they are gone.
// - The host dies (SIGKILL, SIGHUP, SIGQUIT, a crash): with a guarded spawner, the CLI's process group and its
//   descendants (recorded, and those still under it) get SIGTERM at once and SIGKILL after `guardGracePeriod`.

/**
 * The stdout of a started CLI as numbered lines, then its exit as a typed error when it failed.
 * Only an unterminated last line waits for the exit status, which says whether it was cut.
 *
 * @since 0.1.0
 * @category constructors
 */
export const output = (
  cli: Running,
  options: Pick<Config, "maxLineBytes" | "idleTimeout"> & { readonly executable: string }
): Stream.Stream<Ndjson.Line | DecodeError, CliError.ClaudeCliError> => {
  let lastLine = 0
  let unterminated: Array<Ndjson.Line | DecodeError> = []
  const stdout = Stream.mapError(cli.handle.stdout, (error) =>
    CliError.make(
      new CliError.SpawnFailed({
        executable: options.executable,
        description: `reading stdout failed: ${error.message}`,
        cause: error
      })
    ))
  const timeout = options.idleTimeout
  const timed = endWhenDrained(
    stdout,
    cli,
    timeout === undefined ? undefined : { timeout, onIdle: () => idleTimeoutError(timeout, lastLine, cli.stderrTail()) }
  )
  const body = applyStepper(timed, (): Stepper<Uint8Array, Ndjson.Line | DecodeError, never> => {
    const splitter = Ndjson.makeSplitter({ maxLineBytes: options.maxLineBytes, onBadLine: "emit" })
    return {
      step: (chunks, out) => {
        Ndjson.pushAll(splitter, chunks, out)
        if (out.length > 0) lastLine = out[out.length - 1]!.line
        return undefined
      },
      flush: () => {
        splitter.end(unterminated)
        return undefined
      }
    }
  })
  const end = Stream.unwrap(Effect.gen(function*() {
    const status = yield* cli.exitStatus
    const stderrTail = yield* cli.finalStderrTail
    const [last] = unterminated
    unterminated = []
    if (status.exitCode === 0) return last === undefined ? Stream.empty : Stream.make(redactCut(last, cli.redact))
    // A whole JSON value without its newline is a complete message; anything else was cut by the ending.
    const kept = last !== undefined && !isDecodeError(last) && isJson(last.text)
    const cut = last === undefined || kept ? undefined : last
    const exited = CliError.make(
      new CliError.ProcessExited({
        exitCode: status.exitCode,
        signal: status.signal,
        stderrTail,
        ...(cut === undefined ? {} : {
          // Redacted before it is cut; its end, where the kill or exit cut it, is a cut edge.
          cause: `line ${cut.line} was cut by the ${status.signal === null ? "exit" : "kill"}: ` +
            (isDecodeError(cut) ? redactCutAtEnd(cut.raw, cli.redact) : cutRaw(cli.redact(cut.text, { end: true })))
        })
      })
    )
    return Stream.concat(kept ? Stream.make(last) : Stream.empty, Stream.fail(exited))
  }))
  return Stream.concat(body, end)
}

// A last line without its newline: whole JSON is a message; anything else was cut by the exit, at its end.
const redactCut = (last: Ndjson.Line | DecodeError, redact: Redaction.Redact): Ndjson.Line | DecodeError =>
  isDecodeError(last)
    ? withFields(last, { raw: redactCutAtEnd(last.raw, redact) })
    : isJson(last.text)
    ? last
    : { ...last, text: redact(last.text, { end: true }) }

const mergedEnv = (layer: Config["env"], own: Config["env"]): Config["env"] =>
  layer === undefined && own === undefined ? undefined : { ...layer, ...own }

/**
 * One run of the CLI as a stream of its stdout lines. Bad lines (too long, invalid UTF-8) come in-band as
 * `DecodeError` values so that callers pick what a bad line does (`onBadLine`). The stream fails with `ProcessExited`
 * when the CLI exits non-zero or is killed, after every line it completed; a line cut by the ending is
 * dropped and kept as the error's cause. `redact` is the process's (see `SpawnOptions.redact`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const lines = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  config: Config = {}
) =>
(prompt: string, options: QueryOptions.QueryOptions = {}, redact?: Redaction.Redact): Stream.Stream<
  Ndjson.Line | DecodeError,
  CliError.ClaudeCliError
> =>
  Stream.unwrap(Effect.gen(function*() {
    const executable = config.executable ?? defaultExecutable
    const problem = DerivedOptions.invalid(options)
    if (problem !== undefined) return yield* Effect.fail(CliError.make(new CliError.InvalidOptions({ description: problem })))
    const cli = yield* spawn(spawner, {
      executable,
      args: [...(config.executableArgs ?? []), ...QueryOptions.toArgs(options)],
      cwd: options.cwd,
      env: mergedEnv(config.env, DerivedOptions.environment(options)),
      envMode: options.envMode ?? config.envMode,
      onStderr: options.stderr,
      // The prompt goes through stdin: never parsed as a flag, never limited by the argv size.
      stdin: Stream.make(new TextEncoder().encode(prompt)),
      killGracePeriod: config.killGracePeriod,
      stderrTailBytes: config.stderrTailBytes,
      redact
    })
    return output(cli, { ...config, executable })
  }))

/**
 * How long the host-death guard (see {@link guard}) waits between SIGTERM and SIGKILL to a CLI's process
 * group once the host process has died: 2 seconds. The whole group is gone by then.
 *
 * @since 0.1.0
 * @category constants
 */
export const guardGracePeriod: Duration.Duration = Duration.seconds(2)

/**
 * A spawner whose processes, and everything they start, end with their run and with the host. Each process it
 * starts (a CLI, for queries and sessions alike) is the leader of its own group; its descendants (the CLI runs
 * its tools in sessions of their own, `setsid`) are recorded from the process table whenever its stdout has
 * news and once more when its scope closes. When the scope closes (a normal end, an error, an interruption, a
 * signal to the bin), the process's group and every descendant recorded get SIGTERM, then SIGKILL after the
 * command's `forceKillAfter` (default {@link guardGracePeriod}), and the scope waits until they are gone.
 *
 * Each process is also watched by a small `/bin/sh` process holding a pipe from the host: when the host dies
 * (SIGKILL, SIGHUP, SIGQUIT, a crash: the kernel closes its end of the pipe), the watcher ends the group,
 * the recorded descendants and those still under the process, with the groups they lead: SIGTERM, then
 * SIGKILL after {@link guardGracePeriod}.
 *
 * Descendants are found by walking the process table from the process, which works only while the chain of
 * parents from them to it exists; on Linux also by a marker variable (`EFFECT_CLAUDE_CODE_RUN`) the process
 * gets in its environment and its descendants inherit, which finds them at the run's end whatever became of
 * their parents. Limits: elsewhere than Linux, and on Linux for one that cleared its environment, a
 * descendant that left the chain (its parent exited) before it was ever recorded, such as a daemon a tool
 * started between two messages, is not reached; on host death the watcher has only the walk and what was
 * recorded. Needs `/bin/sh`, `ps` and `awk` (and `/proc` on Linux); no native module; on Windows the spawner
 * is returned as it is. {@link nodeSpawner} is guarded.
 *
 * @since 0.1.0
 * @category constructors
 */
export const guard = (spawner: Spawner["Service"]): Spawner["Service"] =>
  process.platform === "win32" ? spawner : ChildProcessSpawner.make((command) => {
    const marker = Guard.nextMarker()
    return Effect.flatMap(spawner.spawn(ChildProcess.setEnv(command, { [Guard.runMarker]: marker })), (handle) =>
      Effect.gen(function*() {
        const watcher = Guard.start(handle.pid, guardGracePeriod)
        const recorded = Guard.recorder(handle.pid, watcher, marker)
        const forceKillAfter = command._tag === "StandardCommand" ? command.options.forceKillAfter : undefined
        const grace = forceKillAfter === undefined ? guardGracePeriod : Duration.fromInputUnsafe(forceKillAfter)
        // Before the spawner's own release (finalizers run last added first): the CLI may still run, and
        // the look then sees all of its tree.
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            recorded.stop()
            recorded.look()
            recorded.tracker.lookMarked()
            return Effect.andThen(
              Guard.endRun(handle.pid, recorded.tracker, grace),
              watcher === undefined ? Effect.void : Guard.stop(watcher)
            )
          })
        )
        return ChildProcessSpawner.makeHandle({
          ...handle,
          stdout: Stream.tap(handle.stdout, () => Effect.sync(recorded.news))
        })
      }))
  })

/**
 * Node's `ChildProcessSpawner` with the file system and path services it needs, guarded (see {@link guard}):
 * every process it starts ends when the host process dies.
 *
 * @since 0.1.0
 * @category layers
 */
export const nodeSpawner: Layer.Layer<Spawner> = Layer.effect(
  ChildProcessSpawner.ChildProcessSpawner,
  ChildProcessSpawner.ChildProcessSpawner.useSync(guard)
).pipe(
  Layer.provide(NodeChildProcessSpawner.layer),
  Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
)
