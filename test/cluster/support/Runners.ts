/**
 * Runner processes of a cluster on one machine (`examples/cluster-runner.ts`), for the failover test and the
 * cluster demo: started as children of this process, their JSON lines collected, the processes they left
 * behind found in the process table.
 */
import * as Effect from "effect/Effect"
import * as child from "node:child_process"
import * as path from "node:path"
import type * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"

export const runnerScript = path.join(import.meta.dirname, "..", "..", "..", "examples", "cluster-runner.ts")

export interface Runner {
  readonly name: string
  readonly port: number
  readonly process: child.ChildProcess
  /** The JSON lines written so far. */
  readonly lines: Array<any>
  /** The CLI processes it started, by pid. */
  readonly spawned: () => ReadonlyArray<number>
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** A runner process on the database `url`, listening on `port`, running the CLI in `sandbox`. */
export const start = (options: {
  readonly name: string
  readonly url: string
  readonly port: number
  readonly sandbox: ClaudeSandbox.Sandbox
}): Runner => {
  const proc = child.spawn(process.execPath, [runnerScript], {
    env: {
      ...process.env,
      CLAUDE_CLUSTER_PG_URL: options.url,
      CLAUDE_CLUSTER_RUNNER_HOST: "127.0.0.1",
      CLAUDE_CLUSTER_RUNNER_PORT: String(options.port),
      RUNNER_SANDBOX: JSON.stringify(options.sandbox)
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<any> = []
  let pending = ""
  let stderr = ""
  proc.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    const parts = pending.split("\n")
    pending = parts.pop()!
    for (const part of parts) if (part.startsWith("{")) lines.push(JSON.parse(part))
  })
  proc.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000)
  })
  return {
    name: options.name,
    port: options.port,
    process: proc,
    lines,
    spawned: () => lines.flatMap((line) => typeof line.spawned === "number" ? [line.spawned] : []),
    stderr: () => stderr,
    exited: new Promise((resolve) => proc.on("exit", (code) => resolve(code)))
  }
}

/** Waits until the runner serves; fails with its stderr when it exits first. */
export const ready = (runner: Runner) =>
  Effect.callback<void, Error>((resume) => {
    const timer = setInterval(() => {
      if (runner.lines.some((line) => "ready" in line)) {
        clearInterval(timer)
        resume(Effect.void)
      } else if (runner.process.exitCode !== null || runner.process.signalCode !== null) {
        clearInterval(timer)
        resume(Effect.fail(new Error(`runner ${runner.name} exited before serving: ${runner.stderr()}`)))
      }
    }, 50)
    return Effect.sync(() => clearInterval(timer))
  })

/**
 * The live processes a runner's CLIs leave: each CLI (by pid) and every process in its process group (its
 * tools), read from the process table.
 */
export const leftBehind = (runner: Runner): ReadonlyArray<{ readonly pid: number; readonly cmd: string }> => {
  const groups = new Set(runner.spawned())
  const table = child.execFileSync("ps", ["-eo", "pid=,pgid=,stat=,args="], { encoding: "utf8" })
  return table.split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
    if (match === null) return []
    const [pid, pgid, stat] = [Number(match[1]), Number(match[2]), match[3]!]
    // A zombie has ended; it waits only for its parent to read its status.
    if (stat.startsWith("Z")) return []
    return groups.has(pid) || groups.has(pgid) ? [{ pid, cmd: match[4]! }] : []
  })
}

/** Ends a runner and whatever its CLIs left (their process groups), as a test's cleanup. */
export const stop = (runner: Runner) =>
  Effect.sync(() => {
    if (runner.process.exitCode === null && runner.process.signalCode === null) runner.process.kill("SIGKILL")
    for (const { pid } of leftBehind(runner)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Gone meanwhile.
      }
    }
  })
