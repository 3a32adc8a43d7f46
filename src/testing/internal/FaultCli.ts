/**
 * A fake Claude Code CLI for fault-testing a pipeline: a real process (real pid, real pipes, real signals)
 * that follows a {@link Plan} instead of talking to a model. It can write given lines with given pacing,
 * split lines across writes, stop mid-line, exit with any code, die by a signal, ignore SIGTERM, hang with
 * no output, flood stdout or stderr as fast as the pipe takes it, never read stdin, and start a child process
 * (a tool, a helper) that holds its pipes open.
 *
 * Start it with {@link make} (an executable path to put in `Live.Config.executable`) or {@link layer}
 * (the `ClaudeCli` service running it). Every run writes its pid and a {@link Report} for assertions.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { readFileSync } from "node:fs"
 * import { ClaudeCli } from "effect-claude-code"
 * // Internal to the test kit (not published): the library's own tests import it by path.
 * import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
 *
 * // A recorded run cut before its last line, which is half written when the CLI is SIGKILLed:
 * // the stream gives every earlier message, then fails with ProcessExited (signal "SIGKILL").
 * const recorded = readFileSync("run.jsonl", "utf8").trim().split("\n")
 * const plan = FaultCli.plan(
 *   FaultCli.lines(recorded.slice(0, -1)),
 *   FaultCli.partial(recorded[recorded.length - 1], 40),
 *   FaultCli.kill("SIGKILL")
 * )
 * const program = ClaudeCli.query("hi").pipe(Stream.runCollect, Effect.provide(FaultCli.layer(plan)))
 * ```
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import { fileURLToPath } from "node:url"
import type * as ClaudeCli from "../../ClaudeCli.ts"
import * as Live from "../../layers/Live.ts"
import * as Process from "../../process/Process.ts"
import type * as Spawn from "../../process/internal/spawn.ts"

/**
 * @since 0.1.0
 * @category models
 */
export type Fd = "stdout" | "stderr"

/**
 * One thing the fake CLI does. Steps run in order; after the last one it exits 0.
 *
 * @since 0.1.0
 * @category models
 */
export type Step =
  | { readonly _tag: "Write"; readonly fd: Fd; readonly text: string }
  /** Writes `text` `count` times (`null`: forever), each write waiting only for room in the pipe. */
  | { readonly _tag: "Flood"; readonly fd: Fd; readonly text: string; readonly count: number | null }
  | { readonly _tag: "Sleep"; readonly millis: number }
  /** Waits forever without writing anything. */
  | { readonly _tag: "Hang" }
  | { readonly _tag: "Exit"; readonly code: number }
  | { readonly _tag: "Kill"; readonly signal: NodeJS.Signals }
  /**
   * Starts a child process (`sleep`) that holds the given pipes open, and goes on without waiting for it;
   * with `ownSession`, in a session (and process group) of its own, as the real CLI starts its tools; with
   * `chatty`, it writes a blank line on stdout every 100 ms instead of sleeping silently.
   */
  | {
    readonly _tag: "Child"
    readonly holds: ReadonlyArray<Fd>
    readonly ownSession?: boolean | undefined
    readonly chatty?: boolean | undefined
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly steps: ReadonlyArray<Step>
  /** SIGTERM is counted in the report and otherwise ignored: only SIGKILL ends the process. */
  readonly ignoreSigterm: boolean
  /** `true` (default): read the whole prompt from stdin before the first step, as `claude -p` does. */
  readonly readStdin: boolean
}

/**
 * What one run did, written when it exits (by plan or SIGTERM) and on each SIGTERM. A run killed by
 * SIGKILL keeps the report of its last SIGTERM, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly stdoutBytes: number
  readonly stderrBytes: number
  readonly sigterms: number
  /** What the run read from stdin (the prompt). */
  readonly stdin: string
}

/**
 * A plan from steps (arrays of steps are flattened).
 *
 * @since 0.1.0
 * @category constructors
 */
export const plan = (...steps: ReadonlyArray<Step | ReadonlyArray<Step>>): Plan => ({
  steps: steps.flat(),
  ignoreSigterm: false,
  readStdin: true
})

/**
 * @since 0.1.0
 * @category combinators
 */
export const ignoreSigterm = (self: Plan): Plan => ({ ...self, ignoreSigterm: true })

/**
 * @since 0.1.0
 * @category combinators
 */
export const neverReadStdin = (self: Plan): Plan => ({ ...self, readStdin: false })

/**
 * Raw text, written in one write (no newline added: use it to stop mid-line).
 *
 * @since 0.1.0
 * @category steps
 */
export const write = (text: string, fd: Fd = "stdout"): Step => ({ _tag: "Write", fd, text })

const toLine = (message: unknown): string => (typeof message === "string" ? message : JSON.stringify(message)) + "\n"

/**
 * @since 0.1.0
 * @category steps
 */
export const sleep = (duration: Duration.Input): Step => ({
  _tag: "Sleep",
  millis: Duration.toMillis(Duration.fromInputUnsafe(duration))
})

const paced = (writes: ReadonlyArray<Step>, pace: Duration.Input | undefined): ReadonlyArray<Step> =>
  pace === undefined ? writes : writes.flatMap((step, i) => i === 0 ? [step] : [sleep(pace), step])

/**
 * One stdout line per message (objects are JSON-encoded, strings written as they are), one write each,
 * with `pace` between them.
 *
 * @since 0.1.0
 * @category steps
 */
export const lines = (
  messages: Iterable<unknown>,
  options?: { readonly pace?: Duration.Input | undefined }
): ReadonlyArray<Step> => paced(Array.from(messages, (m) => write(toLine(m))), options?.pace)

/**
 * A message's line written in pieces cut at the given character offsets, with `pace` (default 20 ms)
 * between the writes so that they reach the reader as separate chunks.
 *
 * @since 0.1.0
 * @category steps
 */
export const split = (
  message: unknown,
  at: ReadonlyArray<number>,
  options?: { readonly pace?: Duration.Input | undefined }
): ReadonlyArray<Step> => {
  const text = toLine(message)
  const cuts = [0, ...at, text.length]
  return paced(cuts.slice(1).map((end, i) => write(text.slice(cuts[i], end))), options?.pace ?? "20 millis")
}

/**
 * The first `chars` characters of a message's line, without its newline: a line cut mid-way.
 *
 * @since 0.1.0
 * @category steps
 */
export const partial = (message: unknown, chars: number): Step => write(toLine(message).slice(0, chars))

/**
 * `text` written `count` times (default: forever) as fast as the pipe takes it.
 *
 * @since 0.1.0
 * @category steps
 */
export const flood = (
  text: string,
  options?: { readonly count?: number | undefined; readonly fd?: Fd | undefined }
): Step => ({ _tag: "Flood", fd: options?.fd ?? "stdout", text, count: options?.count ?? null })

/**
 * @since 0.1.0
 * @category steps
 */
export const exit = (code: number): Step => ({ _tag: "Exit", code })

/**
 * The process sends itself `signal` (after its output reached the pipe).
 *
 * @since 0.1.0
 * @category steps
 */
export const kill = (signal: NodeJS.Signals = "SIGKILL"): Step => ({ _tag: "Kill", signal })

/**
 * @since 0.1.0
 * @category steps
 */
export const hang: Step = { _tag: "Hang" }

/**
 * Starts a child process, as a tool or a background helper would, that inherits the pipes in `holds` (none:
 * a tool with no output) and outlives the fake CLI unless something ends it. Its pid is in
 * `Installed.children`. With `ownSession` it leaves the CLI's process group (`setsid`), as the real CLI's
 * Bash tool does. With `chatty` it writes a blank line (which decoders skip) on stdout every 100 ms.
 *
 * @since 0.1.0
 * @category steps
 */
export const child = (
  holds: ReadonlyArray<Fd> = [],
  options: { readonly ownSession?: boolean; readonly chatty?: boolean } = {}
): Step => ({
  _tag: "Child",
  holds,
  ownSession: options.ownSession ?? false,
  chatty: options.chatty ?? false
})

/**
 * An installed fake CLI.
 *
 * @since 0.1.0
 * @category models
 */
export interface Installed {
  /** The executable to configure as the CLI (`Live.Config.executable`). */
  readonly executable: string
  /** The pids of every run so far, in start order. */
  readonly pids: Effect.Effect<ReadonlyArray<number>>
  /** The report of a run, `undefined` before it wrote one. */
  readonly report: (pid: number) => Effect.Effect<Report | undefined>
  /** The pids of every child started by a {@link child} step, in start order. */
  readonly children: Effect.Effect<ReadonlyArray<number>>
}

// The runner sits next to this module: `.ts` in the sources, `.js` once built.
const runnerPath = (): string =>
  fileURLToPath(new URL(`./faultCliMain${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url))

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`

/**
 * Writes the plan and an executable that runs it into a temporary directory, removed with the Scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(self: Plan): Effect.fn.Return<
  Installed,
  PlatformError.PlatformError,
  Scope.Scope | FileSystem.FileSystem | Path.Path
> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "fault-cli-" })
  const pidFile = path.join(dir, "pids")
  const childFile = path.join(dir, "children")
  const reportPrefix = path.join(dir, "report-")
  const planFile = path.join(dir, "plan.json")
  const executable = path.join(dir, "claude")
  yield* fs.writeFileString(pidFile, "")
  yield* fs.writeFileString(childFile, "")
  yield* fs.writeFileString(planFile, JSON.stringify({ ...self, pidFile, childFile, reportPrefix }))
  // `exec` keeps the pid, so the pid the spawner signals is the runner's own.
  yield* fs.writeFileString(
    executable,
    `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(runnerPath())} ${quote(planFile)} "$@"\n`
  )
  yield* fs.chmod(executable, 0o755)
  const orNone = <A>(effect: Effect.Effect<A, unknown>, none: A) => Effect.orElseSucceed(effect, () => none)
  const pidsIn = (file: string) =>
    orNone(Effect.map(fs.readFileString(file), (text) => text.split("\n").filter((l) => l !== "").map(Number)), [])
  return {
    executable,
    pids: pidsIn(pidFile),
    children: pidsIn(childFile),
    report: (pid) =>
      orNone(Effect.map(fs.readFileString(`${reportPrefix}${pid}.json`), (text) => JSON.parse(text) as Report), undefined)
  }
})

/**
 * The installed fake CLI of {@link layer}, for assertions on pids and reports.
 *
 * @since 0.1.0
 * @category services
 */
export class FaultCli extends Context.Service<FaultCli, Installed>()("effect-claude-code/testing/FaultCli") {}

/**
 * `ClaudeCli` running the fake CLI through the real process layer and its guarded spawner (as `Live.layer`
 * does), plus the {@link FaultCli} itself.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  self: Plan,
  config: Omit<Spawn.Config, "executable"> = {}
): Layer.Layer<ClaudeCli.ClaudeCli | FaultCli, PlatformError.PlatformError> =>
  Layer.unwrap(
    Effect.map(
      Effect.service(FaultCli),
      (installed) => Live.layerWith({ ...config, executable: installed.executable }).pipe(Layer.provide(Process.nodeSpawner))
    )
  ).pipe(
    Layer.provideMerge(Layer.effect(FaultCli, make(self))),
    Layer.provide(NodeServices.layer)
  )

/**
 * Whether a process with this pid exists (signal 0 probes without signalling).
 *
 * @since 0.1.0
 * @category utils
 */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}
