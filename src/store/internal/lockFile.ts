/**
 * A lock file shared by processes on one directory: created exclusively, naming its holder (pid, host name,
 * a token of its own, and where Linux tells them the boot id and the process's start time), kept fresh while
 * held, removed on release only while it still names that holder.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import * as fs_ from "node:fs"
import * as os from "node:os"
import * as NotFound from "./notFound.ts"

/** A lock its holder has not touched for this long, and whose holder is not known alive here, is stale. */
export const staleMillis = 10_000

/** How often a holder touches its lock: well within {@link staleMillis}. */
export const refreshMillis = 2_500

/** What a lock file names. */
export interface Holder {
  readonly pid: number
  readonly host: string
  readonly token: string
  /** The holder's boot (`/proc/sys/kernel/random/boot_id`), where there is one. */
  readonly boot?: string | undefined
  /** The holder's start time in clock ticks after boot (`/proc/<pid>/stat` field 22), where there is one. */
  readonly start?: string | undefined
}

// A file's text, trimmed; `undefined` where it cannot be read (not Linux, no /proc).
const procText = (file: string): string | undefined => {
  try {
    return fs_.readFileSync(file, "utf8").trim()
  } catch {
    return undefined
  }
}

/** This boot's id: a lock of another boot names a process that is gone, whatever its pid. */
const bootId: string | undefined = procText("/proc/sys/kernel/random/boot_id")

/**
 * When the process `pid` started, in clock ticks after boot; `undefined` where /proc does not say. A pid
 * given to another process since starts at another time.
 */
const startOf = (pid: number): string | undefined => {
  const stat = procText(`/proc/${pid}/stat`)
  // Field 2, the command, is in parentheses and may hold spaces: the fields are counted after it.
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ")
  return fields?.[19]
}

/** The tokens of the locks this process holds: a lock naming this pid and another token is a dead one's. */
const holding = new Set<string>()

/** The text of a lock held by `holder`. */
export const format = (holder: Holder): string => JSON.stringify(holder) + "\n"

/** The holder a lock's text names, if it names one. */
export const parse = (text: string): Holder | undefined => {
  try {
    const h = JSON.parse(text)
    return typeof h === "object" && h !== null && Number.isInteger(h.pid) && typeof h.host === "string" &&
        typeof h.token === "string"
      ? {
        pid: h.pid,
        host: h.host,
        token: h.token,
        boot: typeof h.boot === "string" ? h.boot : undefined,
        start: typeof h.start === "string" ? h.start : undefined
      }
      : undefined
  } catch {
    return undefined
  }
}

/** Whether a process of this host runs under `pid`: one we may not signal (EPERM) runs too. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The lock's text; `undefined` for none. */
const textOf = (fs: FileSystem.FileSystem, lock: string) =>
  fs.readFileString(lock).pipe(Effect.map((t): string | undefined => t), NotFound.orElse(undefined))

// How long ago a file was last written; 0 for none.
const age = (fs: FileSystem.FileSystem, file: string) =>
  fs.stat(file).pipe(
    Effect.map((info) => info.mtime._tag === "Some" ? Date.now() - info.mtime.value.getTime() : 0),
    NotFound.orElse(0)
  )

/**
 * Whether `holder`, of this host, is a process that still runs. The host name and pid alone do not say: a
 * container restarted with the same host name runs its process under the same pid (1, say), so a holder of
 * this pid is this process only if it holds the lock (its token), one of another boot is gone, and one whose
 * pid started at another time than the holder did is another process.
 */
const running = (holder: Holder): boolean => {
  if (holder.boot !== undefined && bootId !== undefined && holder.boot !== bootId) return false
  if (holder.pid === process.pid) return holding.has(holder.token)
  return alive(holder.pid) && (holder.start === undefined || startOf(holder.pid) === holder.start)
}

/**
 * Whether the lock with text `text` is stale: untouched for {@link staleMillis}, and not naming a process of
 * this host that runs (a live holder that is slow or suspended keeps it). A lock of another host, or one
 * that names no holder, is judged by its age alone.
 */
const stale = (fs: FileSystem.FileSystem, lock: string, text: string | undefined) =>
  Effect.map(age(fs, lock), (since) => {
    if (since <= staleMillis) return false
    const holder = text === undefined ? undefined : parse(text)
    return holder === undefined || holder.host !== os.hostname() || !running(holder)
  })

/**
 * Holds `lock` for the scope, waiting for it while another holds it. Only taking it is uninterruptible; the
 * wait between tries is not, so a timeout or a closing scope cuts it short.
 */
export const hold = (fs: FileSystem.FileSystem, lock: string): Effect.Effect<void, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function*() {
    const token = crypto.randomUUID()
    const text = format({ pid: process.pid, host: os.hostname(), token, boot: bootId, start: startOf(process.pid) })
    while (true) {
      const taken = yield* fs.writeFileString(lock, text, { flag: "wx" }).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e.reason._tag === "AlreadyExists", () => Effect.succeed(false)),
        Effect.tap((taken) =>
          taken
            ? Effect.andThen(
              Effect.sync(() => holding.add(token)),
              Effect.addFinalizer(() => Effect.ensuring(Effect.ignore(release(fs, lock, text)), Effect.sync(() => holding.delete(token))))
            )
            : Effect.void
        ),
        Effect.uninterruptible
      )
      if (taken) break
      // A lock touched lately is waited on without being read: only an old one may be stale.
      if ((yield* age(fs, lock)) <= staleMillis) {
        yield* Effect.sleep(5)
        continue
      }
      const held = yield* textOf(fs, lock)
      if (yield* stale(fs, lock, held)) yield* takeOver(fs, lock, held)
      else yield* Effect.sleep(5)
    }
    yield* Effect.forkScoped(refresh(fs, lock, text))
  })

// Touches the lock while it is this holder's, so its age tells how long ago its holder last ran.
const refresh = (fs: FileSystem.FileSystem, lock: string, text: string) =>
  Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(refreshMillis)
      if ((yield* textOf(fs, lock)) !== text) return
      const now = new Date()
      yield* fs.utimes(lock, now, now)
    }
  }).pipe(Effect.ignore)

// Removes the lock only while it is this holder's: one taken over and made anew is another's.
const release = (fs: FileSystem.FileSystem, lock: string, text: string) =>
  Effect.flatMap(textOf(fs, lock), (held) => held === text ? fs.remove(lock).pipe(NotFound.orElse(undefined)) : Effect.void)

// Removes a stale lock, one taker at a time (`<lock>.takeover`, itself taken over when old), and only if it
// still is the stale one seen: a taker must not remove the lock another taker has just made.
const takeOver = (fs: FileSystem.FileSystem, lock: string, seen: string | undefined) =>
  Effect.gen(function*() {
    const takeover = `${lock}.takeover`
    const taken = yield* fs.writeFileString(takeover, `${process.pid}\n`, { flag: "wx" }).pipe(
      Effect.as(true),
      Effect.catchIf((e) => e.reason._tag === "AlreadyExists", () => Effect.succeed(false))
    )
    if (!taken) {
      if ((yield* age(fs, takeover)) > staleMillis) yield* fs.remove(takeover).pipe(NotFound.orElse(undefined))
      return
    }
    yield* Effect.ensuring(
      Effect.gen(function*() {
        const held = yield* textOf(fs, lock)
        if (held === seen && (yield* stale(fs, lock, held))) yield* fs.remove(lock).pipe(NotFound.orElse(undefined))
      }),
      Effect.ignore(fs.remove(takeover))
    )
  }).pipe(Effect.uninterruptible)
