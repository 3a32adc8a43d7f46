/**
 * The real Claude Code CLI as the `ClaudeCli` service: queries through the process room (`process/`, one
 * `claude -p` per query), sessions through `Session.make`, both with the layer's executable and environment.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliRun from "./internal/run.ts"
import * as QueryOptions from "../QueryOptions.ts"
import * as Redaction from "../internal/redaction.ts"
import * as Session from "../session/Session.ts"
import * as SessionMirror from "../store/SessionMirror.ts"
import * as Process from "../process/Process.ts"
import * as ProcessLines from "../process/internal/lines.ts"
import * as Spawn from "../process/internal/spawn.ts"
import * as StderrTail from "../process/internal/stderrTail.ts"
import * as CliErrorRedaction from "../internal/cliErrorRedaction.ts"
import * as TempDirs from "../process/internal/tempDirs.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
import { peek } from "../stream/internal/peek.ts"

/**
 * How the CLI is started (see the fields below), plus a default working directory. The executable,
 * environment, working directory, kill grace period and `idleTimeout` apply to sessions too (a session's
 * idle timer runs only while a turn owes output), unless the session's own options say otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config extends Spawn.Config {
  /** Working directory of queries and sessions that set no `cwd`. Default: the current directory. */
  readonly cwd?: string | undefined
}

type Env = Spawn.Config["env"]

const mergeEnv = (base: Env, own: Env): Env => base === undefined && own === undefined ? undefined : { ...base, ...own }

// The process room's `lines` keeps the stderr tail and exit status to itself; a run also needs them after a clean exit
// (a missing result message, the exit code on the span), so the spawn is watched here.
const watch = (spawner: ChildProcessSpawner.ChildProcessSpawner["Service"], redact: Redaction.Redact, tailBytes: number) => {
  const tail = StderrTail.makeTail(tailBytes, redact)
  let spawned: ChildProcessSpawner.ChildProcessHandle | undefined
  const watched = ChildProcessSpawner.make((command) =>
    Effect.map(spawner.spawn(command), (handle) =>
      spawned = ChildProcessSpawner.makeHandle({
        ...handle,
        stderr: peek(tail.push)(handle.stderr)
      }))
  )
  const ended: Effect.Effect<CliRun.Ended | undefined> = Effect.suspend(() => {
    if (spawned === undefined) return Effect.succeed(undefined)
    const stderrTail = tail.text()
    return spawned.exitCode.pipe(
      Effect.map((exitCode): CliRun.Ended => ({ exitCode, stderrTail })),
      Effect.orElseSucceed((): CliRun.Ended => ({ exitCode: null, stderrTail }))
    )
  })
  return { spawner: watched, ended }
}

/**
 * One `claude -p` process per query; the CLI's temp directory of the run's session goes with it (see
 * `process/internal/tempDirs.ts`). Its errors, and the text its `redact` is given, are redacted of the
 * secrets of its environment (the layer's, the query's and, with `envMode` `"merge"`, the inherited ones)
 * and of its options (MCP headers, settings, arguments: see `Redaction.optionSecrets`).
 */
const runner = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  config: Config = {}
): CliRun.Runner =>
(prompt, options = {}) =>
  Effect.sync(() => {
    const own = { ...options, cwd: options.cwd ?? config.cwd }
    // The run's environment as the process gets it: the layer's and the query's.
    const env = { env: mergeEnv(config.env, own.env), envMode: own.envMode ?? config.envMode }
    // One redactor for the run and its process, which would otherwise build its own (reading the environment
    // again): the secrets of both.
    const redact = Redaction.redactor([
      ...Spawn.secrets({ ...env, args: QueryOptions.toArgs(own) }),
      ...Redaction.optionSecrets(own)
    ])
    const watched = watch(spawner, redact, config.stderrTailBytes ?? StderrTail.defaultStderrTailBytes)
    // Every error of the run leaves it redacted here too, whichever stage made it: a safety net for those
    // the process does not redact itself (a failed read of stdout).
    const temp = TempDirs.track(env.env, env.envMode !== "replace")
    const lines = Stream.mapError(ProcessLines.lines(watched.spawner, config)(prompt, own, redact), CliErrorRedaction.redact(redact)).pipe(
      peek((line) => isDecodeError(line) ? undefined : temp.see(line)),
      // Once the process and its descendants are gone (they could write it again before).
      Stream.ensuring(temp.remove)
    )
    const mirror = SessionMirror.target({ ...own, ...env })
    return { lines, ended: watched.ended, redact, mirror }
  })

/**
 * Sessions with the layer's executable, environment, working directory and kill grace period; a session's
 * own options win.
 */
const startSession = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  config: Config = {}
): ClaudeCli.StartSession =>
<O extends Session.Options<any>>(options?: O) =>
  Session.make({
    executable: config.executable,
    executableArgs: config.executableArgs,
    killGracePeriod: config.killGracePeriod,
    idleTimeout: config.idleTimeout,
    ...options,
    cwd: options?.cwd ?? config.cwd,
    env: mergeEnv(config.env, options?.env),
    envMode: options?.envMode ?? config.envMode
  } as O).pipe(Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner))

/**
 * The service over a given spawner.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (spawner: ChildProcessSpawner.ChildProcessSpawner["Service"], config: Config = {}): ClaudeCli.Service =>
  CliRun.make(runner(spawner, config), startSession(spawner, config))

/**
 * `ClaudeCli` running the real CLI through whatever `ChildProcessSpawner` is provided (tests provide a fake
 * one, see `FakeSpawner` in the test kit).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (
  config: Config = {}
): Layer.Layer<ClaudeCli.ClaudeCli, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.map(Effect.service(ChildProcessSpawner.ChildProcessSpawner), (spawner) => make(spawner, config))
  )

/**
 * `ClaudeCli` running the real CLI on Node (`claude` on `PATH` unless `config.executable` says otherwise).
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi", { model: "sonnet" }).pipe(Stream.runCollect)
 * Effect.runPromise(program.pipe(Effect.provide(Live.layer({ executable: "/opt/claude" }))))
 * ```
 */
export const layer = (config: Config = {}): Layer.Layer<ClaudeCli.ClaudeCli> =>
  layerWith(config).pipe(Layer.provide(Process.nodeSpawner))
