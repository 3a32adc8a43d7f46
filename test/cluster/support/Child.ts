/**
 * Child processes of a test that write JSON lines (runners, jobs): started with their lines collected, and
 * ended with whatever their CLIs left behind, found in the process table.
 */
import * as Effect from "effect/Effect"
import * as child from "node:child_process"
import * as fs from "node:fs"

/**
 * The environment variable marking every process of one child's tree: the child has it, and so do the CLIs it
 * starts when it is in their environment too (see {@link withMark}), and their tools. A process keeps it once
 * its parent is gone, so that what a killed child left is found by its mark (Linux: `/proc/<pid>/environ`).
 */
export const markVariable = "EFFECT_CLAUDE_CODE_TEST_TREE"

/** A new mark, for {@link spawn} and the environments the child hands on to its CLIs. */
export const newMark = (): string => `${process.pid}-${Math.random().toString(36).slice(2)}`

/** `env` with the mark. */
export const withMark = (env: Readonly<Record<string, string>>, mark: string): Record<string, string> => ({
  ...env,
  [markVariable]: mark
})

export interface JsonChild {
  readonly process: child.ChildProcess
  /** The mark of its process tree (see {@link markVariable}). */
  readonly mark: string
  /** The JSON lines written so far. */
  readonly lines: Array<any>
  /** The CLI processes it started (its `{"spawned": pid}` lines). */
  readonly spawned: () => ReadonlyArray<number>
  /** The last 4,000 characters of its stderr. */
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** Runs `script` on this Node with `env` and the `mark` of its tree added to the environment. */
export const spawn = (script: string, env: Record<string, string>, mark: string = newMark()): JsonChild => {
  const proc = child.spawn(process.execPath, [script], {
    env: withMark({ ...process.env as Record<string, string>, ...env }, mark),
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
    process: proc,
    mark,
    lines,
    spawned: () => lines.flatMap((line) => typeof line.spawned === "number" ? [line.spawned] : []),
    stderr: () => stderr,
    exited: new Promise((resolve) => proc.on("exit", (code) => resolve(code)))
  }
}

export interface Listed {
  readonly pid: number
  readonly cmd: string
}

// The live processes (a zombie has ended; it waits only for its parent to read its status).
const table = (): ReadonlyArray<Listed & { readonly pgid: number }> =>
  child.execFileSync("ps", ["-eo", "pid=,pgid=,stat=,args="], { encoding: "utf8" }).split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
    return match === null || match[3]!.startsWith("Z") ? [] : [{ pid: Number(match[1]), pgid: Number(match[2]), cmd: match[4]! }]
  })

const carries = (pid: number, mark: string): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${markVariable}=${mark}`)
  } catch {
    // Gone meanwhile, or no /proc.
    return false
  }
}

/**
 * The live processes a child leaves, read from the process table: each of its CLIs (by pid) with every
 * process in its process group, and every other process carrying the child's mark (its tools in sessions of
 * their own, its guards), itself excepted.
 */
export const leftBehind = (of: JsonChild): ReadonlyArray<Listed> => {
  const groups = new Set(of.spawned())
  return table().flatMap(({ cmd, pgid, pid }) =>
    pid !== of.process.pid && (groups.has(pid) || groups.has(pgid) || carries(pid, of.mark)) ? [{ pid, cmd }] : []
  )
}

/** The process group of a running `pid`. */
export const processGroup = (pid: number): number | undefined => table().find((p) => p.pid === pid)?.pgid

/** Whether `pid` still runs (a zombie does not). */
export const isRunning = (pid: number): boolean => table().some((p) => p.pid === pid)

/** Ends a child and whatever it left (see {@link leftBehind}), as a host dying would. */
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
