/**
 * The stand-in CLI of variant (f) and the latency run (bench/fake-claude.sh):
 * its path, the environment that tells it what to write, and the ways the
 * bench starts it. Effect is imported only by `readEffectChild`, when called, so a
 * worker running a baseline never loads it.
 */
import type * as Effect from "effect/Effect"
import type { PlatformError } from "effect/PlatformError"
import type * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as path from "node:path"

/** The executable, given to `Live.layer({ executable })` or spawned directly. */
export const executable = path.join(import.meta.dirname, "fake-claude.sh")

/** Writes `file` to stdout all at once. */
export const allAtOnce = (file: string): Record<string, string> => ({ ECC_BENCH_RECORDING: file })

/** Writes the first `count` lines of `file`, one every `intervalMs`, and their send times to `sentFile`. */
export const paced = (file: string, intervalMs: number, count: number, sentFile: string): Record<string, string> => ({
  ECC_BENCH_RECORDING: file,
  ECC_BENCH_INTERVAL: String(intervalMs),
  ECC_BENCH_COUNT: String(count),
  ECC_BENCH_SENT: sentFile,
  ECC_BENCH_NODE: process.execPath
})

const exitError = (code: number | null) => new Error(`fake CLI exited with ${code}`)

/** The configuration of `Live.layer` (or `Live.make`) running the stand-in CLI with `env`. */
export const liveConfig = (env: Record<string, string>) => ({ executable, env })

/**
 * The stand-in CLI through `child_process.spawn`, as the Agent SDK starts the CLI, with `env` over the
 * inherited environment; `exited` settles once the child has exited and its pipes have closed, and rejects if
 * it exited with a non-zero code. `session`: started in a session of its own (`detached`, `setsid`), as
 * `effect/process`'s spawner starts every process, so that its process group can be ended.
 */
export const spawnNode = (env: Record<string, string>, session = false) => {
  const child = childProcess.spawn(executable, [], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
    detached: session
  })
  const exited = new Promise<void>((resolve, reject) => {
    child.once("close", (code) => (code === 0 ? resolve() : reject(exitError(code))))
  })
  // Rejects only where awaited: a reader that fails first keeps its own error.
  exited.catch(() => {})
  return { child, exited }
}

/**
 * Runs the stand-in CLI as an `effect/process` child with `env` over the inherited environment (through the
 * `ChildProcessSpawner` provided), `read`s its stdout, then waits for it to exit: dies if it exited with a
 * non-zero code.
 */
export const readEffectChild = async <A, E, R>(
  env: Record<string, string>,
  read: (stdout: Stream.Stream<Uint8Array, PlatformError>) => Effect.Effect<A, E, R>
) => {
  const Effect = await import("effect/Effect")
  const ChildProcess = await import("effect/process/ChildProcess")
  return Effect.scoped(Effect.gen(function*() {
    const handle = yield* ChildProcess.make(executable, [], { env, extendEnv: true })
    const result = yield* read(handle.stdout)
    const code = yield* handle.exitCode
    if (code !== 0) return yield* Effect.die(exitError(code))
    return result
  }))
}
