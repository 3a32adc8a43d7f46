/**
 * A lock file shared by processes on one directory: created exclusively, naming its holder (pid, host name,
 * a token of its own), kept fresh while held, removed on release only while it still names that holder.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
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
}

/** The text of a lock held by `holder`. */
export const format = (holder: Holder): string => JSON.stringify(holder) + "\n"

/** The holder a lock's text names, if it names one. */
export const parse = (text: string): Holder | undefined => {
  try {
    const h = JSON.parse(text)
    return typeof h === "object" && h !== null && Number.isInteger(h.pid) && typeof h.host === "string" &&
        typeof h.token === "string"
      ? { pid: h.pid, host: h.host, token: h.token }
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
 * Whether the lock with text `text` is stale: untouched for {@link staleMillis}, and not naming a process of
 * this host that is alive (a live holder that is slow or suspended keeps it). A lock of another host, or one
 * that names no holder, is judged by its age alone.
 */
const stale = (fs: FileSystem.FileSystem, lock: string, text: string | undefined) =>
  Effect.map(age(fs, lock), (since) => {
    if (since <= staleMillis) return false
    const holder = text === undefined ? undefined : parse(text)
    return holder === undefined || holder.host !== os.hostname() || !alive(holder.pid)
  })

/**
 * Holds `lock` for the scope, waiting for it while another holds it. Only taking it is uninterruptible; the
 * wait between tries is not, so a timeout or a closing scope cuts it short.
 */
export const hold = (fs: FileSystem.FileSystem, lock: string): Effect.Effect<void, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function*() {
    const text = format({ pid: process.pid, host: os.hostname(), token: crypto.randomUUID() })
    while (true) {
      const taken = yield* fs.writeFileString(lock, text, { flag: "wx" }).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e.reason._tag === "AlreadyExists", () => Effect.succeed(false)),
        Effect.tap((taken) => taken ? Effect.addFinalizer(() => Effect.ignore(release(fs, lock, text))) : Effect.void),
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
