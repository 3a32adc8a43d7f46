/**
 * The cluster of `examples/cluster.ts` on one machine (a PostgreSQL, a scripted model, two runner processes of
 * `examples/cluster-runner.ts`), for the failover test: the example's kit, and the process table's view of a
 * runner.
 */
import * as child from "node:child_process"

export * from "../../../examples/cluster-kit.ts"

// The process's group and state, from the process table; undefined when there is no such process.
const row = (pid: number): { readonly pgid: number; readonly stat: string } | undefined => {
  try {
    const [pgid, stat] = child.execFileSync("ps", ["-o", "pgid=,stat=", "-p", String(pid)], { encoding: "utf8" }).trim().split(/\s+/)
    return { pgid: Number(pgid), stat: stat! }
  } catch {
    // ps exits 1 when there is no such process.
    return undefined
  }
}

/** The process group of a running `pid`. */
export const processGroup = (pid: number): number | undefined => row(pid)?.pgid

/** Whether `pid` still runs (a zombie does not). */
export const isRunning = (pid: number): boolean => row(pid)?.stat.startsWith("Z") === false
