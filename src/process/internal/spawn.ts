/**
 * Starts one CLI process through a `ChildProcessSpawner`: never through a shell, its stderr drained into a
 * bounded tail, its spawn failures and exit typed, its secrets redacted from both.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CliError from "../../ClaudeCliError.ts"
import * as CliErrorRedaction from "../../internal/cliErrorRedaction.ts"
import * as Redaction from "../../internal/redaction.ts"
import { drainGracePeriod } from "./drain.ts"
import * as StderrTail from "./stderrTail.ts"

/**
 * How the CLI is started. Every field has a default.
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
 * The executable used when none is configured.
 */
export const defaultExecutable = "claude"

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
 */
export interface ExitStatus {
  readonly exitCode: number | null
  readonly signal: string | null
}

/**
 * How to start one CLI process (see {@link spawn}).
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
 */
export const secrets = (options: Pick<SpawnOptions, "args" | "env" | "envMode">): ReadonlyArray<string> =>
  [...Redaction.environmentSecrets(options.env, options.envMode), ...Redaction.valueSecrets(options.args)]

/**
 * A started CLI process.
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
  const tail = StderrTail.makeTail(options.stderrTailBytes ?? StderrTail.defaultStderrTailBytes, redact)
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
