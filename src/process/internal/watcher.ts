/**
 * A watcher of this process's life: a small `/bin/sh` process holding a pipe from this one, whose end the
 * kernel closes when this process dies however it dies (SIGKILL included). Its script reads that end of file
 * (`read -r _` returns) and then cleans up. The host-death guard of `Process` and `LocalPostgres`'s server
 * stop use it; `stop` ends one whose cleanup is no longer wanted.
 */
import * as NodeChildProcess from "node:child_process"

/** Starts `script` (a `/bin/sh -c` script) with `args` as `$0`, `$1`, ... */
export const start = (script: string, args: ReadonlyArray<string>): NodeChildProcess.ChildProcess => {
  const watcher = NodeChildProcess.spawn("/bin/sh", ["-c", script, ...args], {
    // Its own session: a terminal's signals to the host's group do not reach it.
    detached: true,
    stdio: ["pipe", "ignore", "ignore"]
  })
  // A watcher that cannot start leaves things as they were without one.
  watcher.on("error", () => {})
  watcher.stdin?.on("error", () => {})
  // Neither the watcher nor its pipe keep the host's event loop alive.
  watcher.unref()
  ;(watcher.stdin as unknown as { unref?: () => void } | null)?.unref?.()
  return watcher
}

/** Ends the watcher without its cleanup: it is killed before its pipe closes, so its `read` never returns. */
export const stop = (watcher: NodeChildProcess.ChildProcess): void => {
  watcher.kill("SIGKILL")
  watcher.stdin?.destroy()
}
