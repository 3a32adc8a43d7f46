/**
 * Hosts on `Cluster.layerSqlite` (`clusterHostMain.ts`) started as processes of their own, their tree marked (see
 * `examples/cluster-kit.ts`), their output kept line by line with the time each line came.
 */
import * as child from "node:child_process"
import * as path from "node:path"
import * as Kit from "../../../examples/cluster-kit.ts"
import type * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"

const main = path.join(import.meta.dirname, "clusterHostMain.ts")

export interface Line {
  /** When it came, by `Date.now()`. */
  readonly at: number
  readonly text: string
}

export interface ClusterHost {
  readonly process: child.ChildProcess
  readonly mark: string
  /** The lines of stdout and stderr so far. */
  readonly lines: Array<Line>
  readonly exited: Promise<{ readonly code: number | null; readonly at: number }>
}

export const { stop, leftBehind } = Kit

/** Starts a host asking `entity` for a turn with `prompt`, its CLIs running in `sandbox`. */
export const start = (options: {
  readonly db: string
  readonly entity: string
  readonly prompt: string
  readonly sandbox: ClaudeSandbox.Sandbox
}): ClusterHost => {
  const mark = Kit.newMark()
  // The CLIs run in the sandbox's environment alone: the mark goes there too.
  const sandbox = { ...options.sandbox, env: { ...options.sandbox.env, [Kit.markVariable]: mark } }
  const proc = child.spawn(process.execPath, [main], {
    env: {
      ...process.env,
      [Kit.markVariable]: mark,
      RESTART_DB: options.db,
      RESTART_ENTITY: options.entity,
      RESTART_PROMPT: options.prompt,
      RESTART_SANDBOX: JSON.stringify(sandbox)
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<Line> = []
  const collect = (stream: NodeJS.ReadableStream) => {
    let pending = ""
    stream.on("data", (chunk: Buffer) => {
      const parts = (pending + chunk.toString("utf8")).split("\n")
      pending = parts.pop()!
      for (const text of parts) lines.push({ at: Date.now(), text })
    })
  }
  collect(proc.stdout!)
  collect(proc.stderr!)
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    proc.once("exit", (code) => resolve({ code, at: Date.now() }))
  )
  return { process: proc, mark, lines, exited }
}
