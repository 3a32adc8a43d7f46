/**
 * The processes a process started, and their own. Two ways to find them:
 * - the process tree under the root (on Linux read down its children files, elsewhere walked up the whole
 *   table), while the parent chain to it exists: once a process exits, its
 *   children are re-parented (to init or a subreaper) and no walk finds them again. A `Tracker` records the
 *   descendants it saw each time it looks, so that what it saw while the root lived can still be ended after;
 * - on Linux, a marker: a variable put in the root's environment, which its descendants inherit, found in
 *   `/proc/<pid>/environ` whatever became of their parents. A descendant that cleared its environment and left
 *   the chain between two looks is not found.
 *
 * Linux reads `/proc` (no process started; each entry keeps its start time, so that a pid reused by an
 * unrelated process is never signalled); elsewhere `ps` is run, and only the walk is done.
 */
import * as NodeChildProcess from "node:child_process"
import * as fs from "node:fs"

/** One process: its parent, its group, and (Linux) its start time in clock ticks since boot. */
export interface Entry {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  readonly start: string
}

const statOf = (pid: string): Entry | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // After the command name (which may hold spaces and parentheses): state, ppid, pgrp, ..., starttime (22nd field).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (fields[0] === "Z") return undefined
    return { pid: Number(pid), ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] ?? "" }
  } catch {
    return undefined
  }
}

/** Every live process (zombies left out on Linux). */
export const table = (): ReadonlyArray<Entry> => {
  if (process.platform === "linux") {
    return fs.readdirSync("/proc").flatMap((name) => {
      if (!/^\d+$/.test(name)) return []
      const entry = statOf(name)
      return entry === undefined ? [] : [entry]
    })
  }
  try {
    const text = NodeChildProcess.execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="], { encoding: "utf8" })
    return text.split("\n").flatMap((line) => {
      const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number)
      return pid === undefined || Number.isNaN(pid) ? [] : [{ pid, ppid: ppid!, pgid: pgid!, start: "" }]
    })
  } catch {
    return []
  }
}

// Whether the kernel lists each thread's children in `/proc/<pid>/task/<tid>/children` (CONFIG_PROC_CHILDREN):
// read once, from this process's own main thread.
let childFiles: boolean | undefined
const hasChildFiles = (): boolean =>
  childFiles ??= process.platform === "linux" && fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`)

// The pids of a process's children: those of each of its threads (a child's parent is the thread that forked it).
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((task) => {
      try {
        return fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter((c) => c !== "").map(Number)
      } catch {
        return [] // the thread ended
      }
    })
  } catch {
    return [] // the process ended
  }
}

/**
 * The live descendants of `root`: on Linux, read down from it through the children files, so that a look costs
 * a few reads per descendant, not one per process of the machine (a look runs while stdout is busy); elsewhere,
 * or without those files, walked up in the whole {@link table}. Both find the same processes: those whose
 * chain of parents leads to `root` now.
 */
export const under = (root: number): ReadonlyArray<Entry> => {
  if (!hasChildFiles()) return of(root, table())
  const found: Array<Entry> = []
  const seen = new Set([root])
  for (let queue = [root]; queue.length > 0;) {
    const next: Array<number> = []
    for (const child of queue.flatMap(childrenOf)) {
      if (seen.has(child)) continue
      seen.add(child)
      const entry = statOf(String(child))
      if (entry === undefined) continue
      found.push(entry)
      next.push(child)
    }
    queue = next
  }
  return found
}

/** The descendants of `root` in a table. */
export const of = (root: number, entries: ReadonlyArray<Entry>): ReadonlyArray<Entry> => {
  const parent = new Map(entries.map((e) => [e.pid, e.ppid]))
  // At most one step per entry: a cycle (a table read while pids were reused) ends the walk.
  const leadsTo = (pid: number): boolean => {
    for (let p = parent.get(pid), steps = 0; p !== undefined && steps < entries.length; p = parent.get(p), steps++) {
      if (p === root) return true
    }
    return false
  }
  return entries.filter((e) => e.pid !== root && leadsTo(e.pid))
}

/** The live processes whose environment holds `name=value` (Linux; elsewhere none). */
export const marked = (name: string, value: string): ReadonlyArray<Entry> => {
  if (process.platform !== "linux") return []
  const needle = Buffer.from(`${name}=${value}\0`)
  return fs.readdirSync("/proc").flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return []
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`)
      const at = environ.indexOf(needle)
      if (at === -1 || (at > 0 && environ[at - 1] !== 0)) return []
      const entry = statOf(pid)
      return entry === undefined ? [] : [entry]
    } catch {
      return []
    }
  })
}

/** Whether the process of an entry still runs (the same process: on Linux, with the same start time). */
export const isAlive = (entry: Entry): boolean => {
  if (process.platform === "linux") return statOf(String(entry.pid))?.start === entry.start
  try {
    process.kill(entry.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Sends `signal` to each live entry, and to the group it leads. */
export const signal = (entries: ReadonlyArray<Entry>, signal: NodeJS.Signals): void => {
  for (const entry of entries) {
    if (!isAlive(entry)) continue
    for (const target of entry.pgid === entry.pid ? [-entry.pid, entry.pid] : [entry.pid]) {
      try {
        process.kill(target, signal)
      } catch {
        // gone in between
      }
    }
  }
}

/** What a tracker saw of one root's descendants. */
export interface Tracker {
  /** Walks the table now, and returns the descendants seen for the first time. */
  readonly look: () => ReadonlyArray<Entry>
  /** Finds the processes with the root's marker (see {@link track}) and adds them. */
  readonly lookMarked: () => void
  /** Every descendant seen so far. */
  readonly seen: () => ReadonlyArray<Entry>
}

/** A tracker of `root`'s descendants; `marker`: the variable put in the root's environment, if any. */
export const track = (root: number, marker?: { readonly name: string; readonly value: string }): Tracker => {
  const seen = new Map<string, Entry>()
  const add = (entries: ReadonlyArray<Entry>) =>
    entries.filter((entry) => {
      const key = `${entry.pid}/${entry.start}`
      if (entry.pid === root || seen.has(key)) return false
      seen.set(key, entry)
      return true
    })
  return {
    look: () => add(under(root)),
    lookMarked: () => {
      if (marker !== undefined) add(marked(marker.name, marker.value))
    },
    seen: () => [...seen.values()]
  }
}
