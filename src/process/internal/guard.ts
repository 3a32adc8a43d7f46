/**
 * The workings of `Process.nodeSpawner`: the watcher that ends a CLI's processes when the host dies, the recorder of
 * the CLI's descendants, and the end of a run. See `Process.nodeSpawner` for what they add up to.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as NodeChildProcess from "node:child_process"
import * as Descendants from "./descendants.ts"
import * as Watcher from "./watcher.ts"

// Reads the pids the host recorded (descendants it saw while the CLI lived, one per line, `-pid` for a group
// one leads) until its stdin, a pipe from the host, closes: that happens when the host dies however it dies
// (the kernel closes the host's end). It then ends the CLI's process group, the recorded descendants and those
// the process table shows now, with the groups they lead: SIGTERM, SIGKILL after the grace period. The walk
// finds descendants only while the CLI still runs (once it is gone they are no longer its): the CLI starts its
// tools in sessions of their own, out of its group's reach. Without `ps`, only the group and the recorded ones
// are ended. The CLI itself is named too: started through the group wrapper (`group.ts`), it leads its group
// only once the wrapper has run.
const guardScript = [
  "recorded=",
  `while read -r pid; do recorded="$recorded $pid"; done`,
  `tree=$(ps -A -o pid= -o ppid= -o pgid= 2>/dev/null | awk -v root="$1" '` +
  `{ up[$1] = $2; leads[$1] = $1 == $3 } ` +
  `END { for (p in up) { q = up[p]; while (q in up && q != root) q = up[q]; ` +
  `if (q == root) { print p; if (leads[p]) print "-" p } } }')`,
  "kill -TERM -$1 $1 $tree $recorded 2>/dev/null",
  "sleep $2",
  "kill -KILL -$1 $1 $tree $recorded 2>/dev/null"
].join("\n")

/** Starts the watcher of one process group; `undefined` where there is no POSIX shell (Windows). */
export const start = (pgid: number, grace: Duration.Duration): NodeChildProcess.ChildProcess | undefined => {
  if (process.platform === "win32") return undefined
  const seconds = String(Math.max(1, Math.ceil(Duration.toSeconds(grace))))
  // A guard that cannot start leaves the CLI as it was without one; the run itself is not affected.
  return Watcher.start(guardScript, ["guard", String(pgid), seconds])
}

/** Ends the watcher when the CLI's scope closes (the run has been ended by then), waiting for its exit. */
export const stop = (watcher: NodeChildProcess.ChildProcess): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (watcher.exitCode !== null || watcher.signalCode !== null || watcher.pid === undefined) {
      watcher.stdin?.destroy()
      return resume(Effect.void)
    }
    watcher.once("exit", () => resume(Effect.void))
    // Referenced again while the session waits for its exit, or the host could end before the wait does.
    watcher.ref()
    Watcher.stop(watcher)
  })

/** The variable that marks the processes of one run (see `internal/descendants.ts`). */
export const runMarker = "EFFECT_CLAUDE_CODE_RUN"
let runs = 0

/** A new value of {@link runMarker}: the host's pid and a count. */
export const nextMarker = (): string => `${process.pid}-${++runs}`

// How often at most the process table is read while the CLI writes: it is read when stdout has news (a
// tool starts around a message), never on a timer.
const lookInterval = 100

/**
 * Records the descendants of a CLI (see `internal/descendants.ts`) when its stdout has news, at most every
 * `lookInterval` (the last news is looked at too, once the interval is over), and tells the watcher.
 */
export const recorder = (pid: number, watcher: NodeChildProcess.ChildProcess | undefined, marker: string) => {
  const tracker = Descendants.track(pid, { name: runMarker, value: marker })
  let last = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const look = () => {
    last = Date.now()
    timer = undefined
    const fresh = tracker.look()
    if (fresh.length > 0 && watcher?.stdin?.writable === true) {
      watcher.stdin.write(fresh.map((e) => e.pgid === e.pid ? `${e.pid}\n-${e.pid}\n` : `${e.pid}\n`).join(""))
    }
  }
  return {
    tracker,
    look,
    news: () => {
      if (timer !== undefined) return
      const wait = last + lookInterval - Date.now()
      if (wait <= 0) return look()
      timer = setTimeout(look, wait)
      timer.unref()
    },
    stop: () => clearTimeout(timer)
  }
}

// Whether the CLI's process group still has a member that can be signalled.
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Ends a run: the CLI's process group and every descendant seen: SIGTERM, then SIGKILL to what is left after
 * `grace`. Waits in native time (a test clock must not hold a finalizer), polling every 20 ms, until all are
 * gone, at most 1 s after the SIGKILL.
 */
export const endRun = (pgid: number, tracker: Descendants.Tracker, grace: Duration.Duration): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const all = tracker.seen()
    const left = () => groupAlive(pgid) || all.some(Descendants.isAlive)
    const send = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pgid, signal)
      } catch {
        // the group is gone
      }
      Descendants.signal(all, signal)
    }
    let killed = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const killAt = Date.now() + Duration.toMillis(grace)
    const poll = () => {
      if (!left() || (killed && Date.now() > killAt + 1000)) return resume(Effect.void)
      if (!killed && Date.now() >= killAt) {
        killed = true
        send("SIGKILL")
      }
      timer = setTimeout(poll, 20)
    }
    if (!left()) return resume(Effect.void)
    send("SIGTERM")
    poll()
    return Effect.sync(() => clearTimeout(timer))
  })
