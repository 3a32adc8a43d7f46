/**
 * Running the command-line tool in tests: in process (a display over a file, stdout and stderr captured,
 * no TTY) and as a child process (`node src/cli/main.ts ...`), as a user runs it. Both see a pinned terminal
 * environment ({@link pinnedEnv}), so the settings of the shell running the tests cannot change the results.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Command from "effect/cli/Command"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Item from "../../../src/filter/Item.ts"
import * as Decode from "../../../src/stream/Decode.ts"
import { isDecodeError } from "../../../src/stream/DecodeError.ts"
import type * as Display from "../../../src/cli/Display.ts"
import * as Commands from "../../../src/cli/Commands.ts"
import * as Live from "../../../src/cli/Live.ts"
import * as FakeSpawner from "../../../src/testing/FakeSpawner.ts"

export const root = path.resolve(import.meta.dirname, "..", "..", "..")
export const main = path.join(root, "src", "cli", "main.ts")

/**
 * What decides colors, animation and layout, fixed: no colors whatever `FORCE_COLOR` the shell has, a known
 * terminal type and width. A test that wants colors or a TTY says so (see Tmux.ts).
 */
export const pinnedEnv: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  TERM: "xterm-256color",
  COLUMNS: "100",
  LINES: "40"
}

/** `env` with the {@link pinnedEnv} on top. */
export const pinned = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries({ ...env, ...pinnedEnv }).filter((e): e is [string, string] => e[1] !== undefined)
  )

/** `node src/cli/main.ts ...args`, waiting for it to end (the environment: `env`, else this one; pinned). */
export const cli = (args: ReadonlyArray<string>, options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, [main, ...args], {
    encoding: "utf8",
    cwd: root,
    input: options.input,
    env: pinned(options.env ?? process.env),
    timeout: 60_000
  })

/** Every line of a file, decoded leniently. */
export const records = (file: string): Array<Decode.DecodedLine | Decode.DecodeError> => Decode.decodeAll(fs.readFileSync(file))

/** The items of a file, as the display sees them. */
export const items = (file: string): Array<Item.Item> =>
  Item.fromIterable(records(file).map((r) => isDecodeError(r) ? r : r.message))

export interface Captured<A> {
  readonly value: A
  readonly stdout: string
  readonly stderr: string
}

/** Runs an effect against a captured, non-TTY standard output and error. */
export const capture = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Captured<A>, E, Exclude<R, Stdio.Stdio>> =>
  Effect.suspend(() => {
    let stdout = ""
    let stderr = ""
    const sink = (append: (s: string) => void) => () =>
      Sink.forEach((chunk: string | Uint8Array) =>
        Effect.sync(() => append(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)))
      )
    const stdio = Stdio.layerTest({
      stdout: sink((s) => stdout += s),
      stderr: sink((s) => stderr += s)
    })
    return effect.pipe(
      Effect.provide(Layer.provideMerge(TerminalCapabilities.layer, stdio)),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: pinnedEnv })),
      Effect.map((value) => ({ value, stdout, stderr }))
    )
  })

/**
 * `effect-claude-code ...args` in process, parsed by effect/cli, with `claude` started through a fake spawner
 * that answers with `reply`: how it ended, what it printed and what it spawned.
 */
export const command = (args: ReadonlyArray<string>, reply: FakeSpawner.Reply) =>
  Effect.gen(function*() {
    const out = yield* capture(Effect.exit(Command.runWith(Commands.command, { version: "test" })(args)))
    return { ...out, spawned: yield* FakeSpawner.spawned }
  }).pipe(Effect.provide(FakeSpawner.layer(reply)), Effect.provide(NodeServices.layer))

/** `view FILE` in process: the display over a file's lines. */
export const view = (file: string, options: Display.Options) =>
  capture(Live.display(Stream.fromIterable(records(file)), options))


/** `node src/cli/main.ts ...args` with exactly `env` (pinned), without blocking (a server in this process may answer it). */
export const cliAsync = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>
): Effect.Effect<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(process.execPath, [main, ...args], { cwd: root, env: pinned(env) })),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  ).pipe(Effect.flatMap((child) =>
    Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
      child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
      child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    })
  ))

/**
 * `node src/cli/main.ts ...args` left running (a `view --follow`): its output so far, the lines printed, a wait
 * for a condition on them (failing with the output after 15 s), and its exit code once it ends.
 */
export const following = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [main, ...args], { cwd: root })
  let stdout = ""
  child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const printed = () => stdout.split("\n").filter((l) => l !== "").length
  const until = async (what: string, predicate: () => boolean) => {
    for (let i = 0; i < 300 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50))
    if (!predicate()) throw new Error(`timed out waiting for ${what}; stdout so far:\n${stdout}`)
  }
  return { child, exited, printed, until, stdout: () => stdout }
}
