/**
 * What a run may leave behind: fibers (counted through Effect's fiber runtime metrics hook), child
 * processes (from /proc) and open file descriptors (/proc/self/fd). Linux only.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as fs from "node:fs"

/** Open file descriptors of this process. */
export const openFds = (): number => fs.readdirSync("/proc/self/fd").length

/** Pids of the live processes whose parent is this process. */
export const childPids = (): Array<number> =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      // The fields after the command name (which may hold spaces) start with the state, then the ppid.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return Number(ppid) === process.pid && state !== "Z" ? [Number(pid)] : []
    } catch {
      return []
    }
  })

/** Pids of the live processes below `root` (its children, theirs, ...), read from /proc. */
export const descendantPids = (root: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const name of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8")
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (state !== "Z") parents.set(Number(name), Number(ppid))
    } catch {
      // gone in between
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid), steps = 0; p !== undefined && steps < parents.size; p = parents.get(p), steps++) {
      if (p === root) return true
    }
    return false
  }
  return [...parents.keys()].filter(below)
}

export interface FiberCount {
  /** Fibers started under {@link tracked} so far. */
  readonly started: number
  /** Of those, the ones that have not ended. */
  readonly active: number
}

/**
 * Runs `effect` with every fiber it starts (and they start) counted, and returns its result with the count
 * once it is done: a fiber still active then was leaked.
 */
export const tracked = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, FiberCount], E, R> =>
  Effect.suspend(() => {
    const count = { started: 0, active: 0 }
    const service: Metric.FiberRuntimeMetricsService = {
      recordFiberStart: () => {
        count.started++
        count.active++
      },
      recordFiberEnd: () => {
        count.active--
      }
    }
    return effect.pipe(
      Effect.provideService(Metric.FiberRuntimeMetrics, service),
      Effect.map((a) => [a, { ...count }] as const)
    )
  })
