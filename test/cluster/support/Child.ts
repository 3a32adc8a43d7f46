/**
 * Child processes of a test that write JSON lines (runners, jobs): started with their lines collected, and
 * ended with whatever their CLIs left behind, found in the process table.
 */
import * as Effect from "effect/Effect"
import * as child from "node:child_process"

export interface JsonChild {
  readonly process: child.ChildProcess
  /** The JSON lines written so far. */
  readonly lines: Array<any>
  /** The CLI processes it started (its `{"spawned": pid}` lines). */
  readonly spawned: () => ReadonlyArray<number>
  /** The last 4,000 characters of its stderr. */
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** Runs `script` on this Node with `env` added to the environment. */
export const spawn = (script: string, env: Record<string, string>): JsonChild => {
  const proc = child.spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
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
    process: proc,
    lines,
    spawned: () => lines.flatMap((line) => typeof line.spawned === "number" ? [line.spawned] : []),
    stderr: () => stderr,
    exited: new Promise((resolve) => proc.on("exit", (code) => resolve(code)))
  }
}

/**
 * The live processes a child's CLIs leave: each CLI (by pid) and every process in its process group (its
 * tools), read from the process table.
 */
export const leftBehind = (of: JsonChild): ReadonlyArray<{ readonly pid: number; readonly cmd: string }> => {
  const groups = new Set(of.spawned())
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

/** Ends a child and whatever its CLIs left (their process groups), as a host dying would. */
export const stop = (of: JsonChild) =>
  Effect.sync(() => {
    if (of.process.exitCode === null && of.process.signalCode === null) of.process.kill("SIGKILL")
    for (const { pid } of leftBehind(of)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Gone meanwhile.
      }
    }
  })
