/**
 * Runs the real Claude Code CLI through `ChildProcessSpawner` and frames its stdout into numbered lines.
 * The process lives exactly as long as the stream: ending the stream early (take, interruption, timeout,
 * failure) sends SIGTERM, then SIGKILL after a grace period.
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { ChildProcessSpawner as Spawner } from "effect/process/ChildProcessSpawner"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as CliError from "../ClaudeCliError.ts"
import * as QueryOptions from "../QueryOptions.ts"
import * as Ndjson from "../stream/Ndjson.ts"
import type { DecodeError } from "../stream/DecodeError.ts"

/**
 * How the CLI is started. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Executable name (looked up on `PATH`) or path. Default `"claude"`. */
  readonly executable?: string | undefined
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
}

/**
 * The executable used when none is configured.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultExecutable = "claude"

/**
 * Keeps the last `limit` bytes written to it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tail {
  readonly push: (chunk: Uint8Array) => void
  readonly text: () => string
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeTail = (limit: number): Tail => {
  let chunks: Array<Uint8Array> = []
  let size = 0
  return {
    push: (chunk) => {
      chunks.push(chunk)
      size += chunk.length
      while (chunks.length > 1 && size - chunks[0].length >= limit) {
        size -= chunks[0].length
        chunks.shift()
      }
    },
    text: () => {
      const all = Buffer.concat(chunks)
      chunks = [all]
      // A cut through a multi-byte character decodes to U+FFFD, which is fine for a diagnostic.
      return new TextDecoder().decode(all.length > limit ? all.subarray(all.length - limit) : all)
    }
  }
}

const toSpawnError = (executable: string, cwd: string | undefined) =>
(error: PlatformError.PlatformError): CliError.ClaudeCliError => {
  const reason = error.reason
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
 * One run of the CLI as a stream of its stdout lines. Bad lines (too long, invalid UTF-8) come in-band as
 * `DecodeError` values so that callers pick strict or lenient handling. The stream fails with `ProcessExited`
 * when the CLI exits non-zero or is killed; a line cut by the kill is dropped and kept as the error's cause.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lines = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  config: Config = {}
) =>
(prompt: string, options: QueryOptions.QueryOptions = {}): Stream.Stream<
  Ndjson.Line | DecodeError,
  CliError.ClaudeCliError
> =>
  Stream.unwrap(Effect.gen(function*() {
    const executable = config.executable ?? defaultExecutable
    const env = options.env === undefined && config.env === undefined
      ? undefined
      : { ...config.env, ...options.env }
    const envMode = options.envMode ?? config.envMode ?? "merge"
    const secrets = QueryOptions.secretValues(env)
    const command = ChildProcess.make(executable, QueryOptions.toArgs(options), {
      cwd: options.cwd,
      env: envMode === "replace" ? env ?? {} : env,
      extendEnv: envMode === "merge",
      // The prompt goes through stdin: never parsed as a flag, never limited by the argv size.
      stdin: Stream.make(new TextEncoder().encode(prompt)),
      killSignal: "SIGTERM",
      forceKillAfter: config.killGracePeriod ?? Duration.seconds(3)
    })
    const handle = yield* spawner.spawn(command).pipe(Effect.mapError(toSpawnError(executable, options.cwd)))
    const tail = makeTail(config.stderrTailBytes ?? 8 * 1024)
    // stderr is always drained, so a chatty CLI never blocks on a full pipe.
    const stderrFiber = yield* Effect.forkScoped(
      Stream.runForEach(handle.stderr, (chunk) => Effect.sync(() => tail.push(chunk))).pipe(Effect.ignore)
    )
    const stderrTail = Effect.as(Fiber.join(stderrFiber), undefined).pipe(
      Effect.map(() => QueryOptions.redactText(tail.text(), secrets))
    )

    const exitStatus = handle.exitCode.pipe(
      Effect.map((code) => ({ exitCode: code as number, signal: null as string | null })),
      Effect.catch((error) => Effect.succeed({ exitCode: null as number | null, signal: signalOf(error) }))
    )

    // The last line is held back until the exit status is known: a line cut by a kill is not a decode error.
    let held: Ndjson.Line | DecodeError | undefined
    const body = Ndjson.linesLenient(handle.stdout, { maxLineBytes: config.maxLineBytes }).pipe(
      Stream.mapAccum(() => undefined, (_, line: Ndjson.Line | DecodeError) => {
        const previous = held
        held = line
        return [undefined, previous === undefined ? [] : [previous]] as const
      }),
      Stream.mapError((error) =>
        CliError.make(
          new CliError.SpawnFailed({ executable, description: `reading stdout failed: ${error.message}`, cause: error })
        )
      )
    )
    const end = Stream.unwrap(Effect.gen(function*() {
      const status = yield* exitStatus
      const stderr = yield* stderrTail
      const last = held
      held = undefined
      if (status.exitCode === 0) {
        return last === undefined ? Stream.empty : Stream.make(last)
      }
      const cut = status.signal !== null && last !== undefined && !("_tag" in last) && !isJson(last.text)
      const exited = CliError.make(
        new CliError.ProcessExited({
          exitCode: status.exitCode,
          signal: status.signal,
          stderrTail: stderr,
          ...(cut ? { cause: `line ${last.line} was cut by the kill: ${last.text.slice(0, 240)}` } : {})
        })
      )
      return Stream.concat(cut || last === undefined ? Stream.empty : Stream.make(last), Stream.fail(exited))
    }))
    return Stream.concat(body, end)
  }))

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * Node's `ChildProcessSpawner` with the file system and path services it needs.
 *
 * @since 0.1.0
 * @category layers
 */
export const nodeSpawner: Layer.Layer<Spawner> = NodeChildProcessSpawner.layer.pipe(
  Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
)
