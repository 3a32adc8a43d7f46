/**
 * A {@link SessionStore.Shape} in a directory of JSONL files, laid out as the CLI's projects directory: the
 * embedded default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as RcMap from "effect/RcMap"
import * as Semaphore from "effect/Semaphore"
import { causeText } from "../internal/causeText.ts"
import * as Walk from "../internal/walk.ts"
import * as Jsonl from "./internal/jsonl.ts"
import * as Keys from "./internal/keys.ts"
import * as LockFile from "./internal/lockFile.ts"
import * as NotFound from "./internal/notFound.ts"
import * as StoredSummary from "./internal/storedSummary.ts"
import * as Uuids from "./internal/uuids.ts"
import * as SessionStore from "./SessionStore.ts"

// The transcripts of a session directory, as the CLI names them.
const isJsonl = (name: string): boolean => name.endsWith(".jsonl")

interface State {
  readonly uuids: Set<string>
  summary: SessionStore.SummaryData | undefined
  bytes: number
  lines: number
}

const emptyState = (): State => ({ uuids: new Set(), summary: undefined, bytes: 0, lines: 0 })

// How long a store keeps what it knows of a transcript after its last append: long enough that a session's
// appends in a row read its file once, short enough that a long-lived store forgets the sessions it is done with.
const idleTimeToLive = "1 minute"

/**
 * A store in a directory, laid out as the CLI's projects directory, plus one summary file per session:
 *
 * - `<root>/<projectKey>/<sessionId>.jsonl`: the main transcript, one entry per line, in append order;
 * - `<root>/<projectKey>/<sessionId>/<subpath>.jsonl`: the transcripts under it (subagents);
 * - `<root>/<projectKey>/<sessionId>.summary.json`: `{ "mtime", "data" }`, the session's {@link SessionStore.SessionSummary}
 *   without its id, replaced (written aside, then renamed) after each append that adds to the main transcript;
 *   its `mtime` is the transcript file's after that append.
 *
 * Appends to one transcript are serialized across stores and processes on the same root by a lock file next
 * to it (`<file>.lock`, created exclusively), so uuids stay the idempotency key for all of them. The lock
 * names its holder (pid, host name, a token of its own and, on Linux, the boot id and the process's start
 * time); the holder touches it every 2.5 seconds while it holds it and, on release, removes it only if it
 * still names that holder. A waiter takes a lock over (one waiter at a time) only when it is stale: untouched
 * for 10 seconds and not naming a live process of the waiter's host. So a live holder on this host keeps its
 * lock however slow or suspended it is; a holder on another host sharing the directory keeps it as long as it
 * keeps touching it (one stopped for 10 seconds loses it, and then two may hold it at once); a lock naming a
 * pid that died is taken over after 10 seconds, also when that pid is now another process's (its start time
 * differs), one of an earlier boot, or the waiter's own (a container restarted with the same host name runs
 * as the same pid): the waiter's own lock is only one it took, by its token. Each
 * transcript has a lock of its own: a lock left by a dead process stalls appends to its file only. Waiting
 * for a lock is interruptible: an append cut short by a timeout (the `appendTimeout` of a mirror) or a
 * closing scope stops waiting and writes nothing.
 *
 * A transcript's uuids and summary are read at its first append, then only the bytes others appended since
 * (the file grew past what this store knows); the summary is folded again from the transcript when its
 * `bytes` do not match the file's size (a write the summary missed). Transcripts are read line by line in
 * chunks: an append keeps their uuids only, `load` their entries, so neither holds the file as one string.
 * Listing reads the summary files only; a transcript without one (copied in by hand) is folded from its
 * entries, and left out of `listSessionSummaries` if one of its lines is not a JSON object (it is still in
 * `listSessions`, and its `load` fails with `InvalidEntry`): the SDK lists a session missing from the
 * summaries from `listSessions` and `load`, so one bad transcript does not hide a project's other sessions.
 *
 * Lines: a last line without its newline is an append under way or one a dead process cut off. `load` leaves
 * it out unless it is a whole JSON object. An append, holding the lock, repairs it first: a whole JSON object
 * gets its newline and is kept, anything else is cut away (an entry the mirror sends again is then appended
 * anew), so an append never continues a torn line. Any other line that is not a JSON object (blank lines
 * are skipped) fails `load` and `append` with `InvalidEntry` naming the file and the line: the store does not
 * guess past it, since the entries after it are the session's too.
 *
 * The store keeps no tool-call index: a query (`Sessions.select`) reads every session of the projects it asks
 * for (`listProjects` lists the project directories).
 *
 * What the store knows of a transcript (its uuids, size and summary) and the fiber appending to it are kept
 * for a minute after its last append, then let go: a store that appended to many sessions holds nothing of
 * those it no longer writes to. Its scope ends what it holds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(root: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // Per transcript file: the uuids it holds, its size and lines up to there and, for a main one, its summary.
  // Kept only while its file is in `locks`, so a store appending to many sessions holds the recent ones only.
  const states = new Map<string, State>()
  // Per transcript file in use: the fiber of this store appending to it (others wait here, not on its lock
  // file). Released a while after its last use, and its state with it: what the store knew of the file is read
  // again at its next append, so what it keeps is bounded by the sessions it writes to, not by all it ever did.
  const locks = yield* RcMap.make({
    lookup: (file: string) =>
      Effect.acquireRelease(Semaphore.make(1), () => Effect.sync(() => states.delete(file))),
    idleTimeToLive: idleTimeToLive
  })
  const fileOf = (key: SessionStore.SessionKey) =>
    path.join(root, key.projectKey, key.subpath === undefined ? `${key.sessionId}.jsonl` : path.join(key.sessionId, `${key.subpath}.jsonl`))
  const summaryFileOf = (projectKey: string, sessionId: string) => path.join(root, projectKey, `${sessionId}.summary.json`)
  const fail = Keys.operationFailed
  // As `fail`, but a line that is no JSON object is `InvalidEntry`, naming the file and the line.
  const failIn = (operation: SessionStore.Operation, key: SessionStore.SessionKey | string, file: string) => (cause: unknown): SessionStore.SessionStoreError =>
    cause instanceof Jsonl.BadLine
      ? new SessionStore.SessionStoreError({
        reason: new SessionStore.InvalidEntry({
          operation,
          key: typeof key === "string" ? key : Keys.keyString(key),
          detail: `line ${cause.line} of ${file} is not a JSON object: ${causeText(cause.cause)}`,
          cause: cause.cause
        })
      })
      : fail(operation, key)(cause)
  const readText = (file: string) => fs.readFileString(file).pipe(Effect.map(Option.some), NotFound.orElse(Option.none<string>()))
  // Every entry of a file, read line by line; a last line nobody terminated (an append under way, or one cut
  // off) is left out unless it is a whole JSON object.
  const read = (file: string) => {
    const entries: Array<SessionStore.Entry> = []
    return Jsonl.scan(fs, file, { offset: 0, lines: 0 }, (entry) => entries.push(entry as SessionStore.Entry)).pipe(
      Effect.map((scanned) => {
        const last = Jsonl.objectOf(scanned.tail)
        if (last !== undefined) entries.push(last as SessionStore.Entry)
        return Option.some<ReadonlyArray<SessionStore.Entry>>(entries)
      }),
      NotFound.orElse(Option.none<ReadonlyArray<SessionStore.Entry>>())
    )
  }
  const mtimeOf = (file: string) =>
    Effect.map(fs.stat(file), (info) => Option.match(info.mtime, { onNone: () => 0, onSome: (d) => Math.floor(d.getTime()) }))
  // A summary file that cannot be read, parsed or checked is as good as none: the transcript is folded again
  // (and the next append writes it anew), so a corrupt file never lists garbage.
  const readSummary = (projectKey: string, sessionId: string) =>
    readText(summaryFileOf(projectKey, sessionId)).pipe(
      Effect.map(Option.flatMap((text) => Option.liftThrowable(() => JSON.parse(text) as Omit<SessionStore.SessionSummary, "sessionId">)())),
      Effect.map(Option.filter((s) => typeof s?.mtime === "number" && StoredSummary.problem(s.data) === undefined))
    )
  const writeSummary = (projectKey: string, sessionId: string, summary: Omit<SessionStore.SessionSummary, "sessionId">) => {
    const file = summaryFileOf(projectKey, sessionId)
    return fs.writeFileString(`${file}.tmp`, JSON.stringify(summary)).pipe(Effect.andThen(fs.rename(`${file}.tmp`, file)))
  }

  const sizeOf = (file: string) => Effect.map(fs.stat(file), (info) => Number(info.size)).pipe(NotFound.orElse(0))

  // `effect` alone among this store's fibers on `file`.
  const exclusive = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>) =>
    Effect.scoped(Effect.flatMap(RcMap.get(locks, file), (semaphore) => semaphore.withPermits(1)(effect)))
  // `effect` holding `file` here and its lock file: one dead process stalls that file only.
  const holding = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>) =>
    exclusive(
      file,
      Effect.scoped(Effect.gen(function*() {
        yield* fs.makeDirectory(path.dirname(file), { recursive: true })
        yield* LockFile.hold(fs, `${file}.lock`)
        return yield* effect
      }))
    )

  // Under the lock, a last line without its newline was left by an append that died: a whole JSON object
  // gets its newline (it is kept), anything else is cut off, so the next append starts a line of its own.
  const repair = (file: string, scanned: Jsonl.Scan) => {
    if (scanned.tail === "") return Effect.succeed({ entry: undefined, bytes: scanned.end })
    const entry = Jsonl.objectOf(scanned.tail) as SessionStore.Entry | undefined
    return entry === undefined
      ? Effect.as(fs.truncate(file, scanned.end), { entry, bytes: scanned.end })
      : Effect.as(fs.writeFileString(file, "\n", { flag: "a" }), { entry, bytes: scanned.end + Buffer.byteLength(scanned.tail) + 1 })
  }

  // The file's state, under its lock: read from where this store's knowledge ends (all of it at first),
  // keeping the uuids and, when the summary is to be folded, the entries in batches.
  const stateOf = (key: SessionStore.SessionKey, file: string) =>
    Effect.gen(function*() {
      const known = states.get(file)
      const size = yield* sizeOf(file)
      if (known !== undefined && size === known.bytes) return known
      // What others appended since: whole lines, but for one an append that died cut off.
      const state: State = known !== undefined && size > known.bytes
        ? known
        : emptyState()
      const stored = key.subpath === undefined && state.bytes === 0 ? yield* readSummary(key.projectKey, key.sessionId) : Option.none()
      const folding = key.subpath === undefined && (state.bytes > 0 || Option.isNone(stored) || stored.value.data.bytes > size)
      const scanned = yield* foldFile(file, state, folding)
      const repaired = yield* repair(file, scanned)
      const entries = repaired.entry === undefined ? [] : [repaired.entry]
      Uuids.fresh(state.uuids, entries)
      if (folding && entries.length > 0) state.summary = SessionStore.foldSummary(state.summary, entries)
      else if (!folding && key.subpath === undefined) {
        // The stored summary, unless it missed a write: then the transcript is folded again.
        state.summary = Option.isSome(stored) && stored.value.data.bytes === repaired.bytes
          ? stored.value.data
          : (yield* foldFile(file, emptyState(), true)).summary
      }
      state.bytes = repaired.bytes
      state.lines = scanned.lines + (repaired.entry === undefined ? 0 : 1)
      states.set(file, state)
      return state
    })

  // Reads `file` from `state.bytes` into `state` (uuids; the summary when `folding`), in batches.
  const foldFile = (file: string, state: State, folding: boolean) => {
    let batch: Array<SessionStore.Entry> = []
    const flush = () => {
      if (folding && batch.length > 0) state.summary = SessionStore.foldSummary(state.summary, batch)
      batch = []
    }
    return Jsonl.scan(fs, file, { offset: state.bytes, lines: state.lines }, (entry) => {
      if (typeof entry.uuid === "string") state.uuids.add(entry.uuid)
      if (!folding) return
      batch.push(entry as SessionStore.Entry)
      if (batch.length >= 1000) flush()
    }).pipe(
      NotFound.orElse({ lines: 0, end: 0, tail: "" }),
      Effect.tap(() => Effect.sync(flush)),
      Effect.map((scanned) => ({ ...scanned, summary: state.summary }))
    )
  }

  const append = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.Entry>) => {
    const file = fileOf(key)
    return holding(
      file,
      Effect.gen(function*() {
        const state = yield* stateOf(key, file)
        const added = Uuids.fresh(state.uuids, entries)
        if (added.length === 0) return
        const text = added.map((e) => JSON.stringify(e) + "\n").join("")
        yield* fs.writeFileString(file, text, { flag: "a" })
        state.bytes += Buffer.byteLength(text)
        state.lines += added.length
        if (key.subpath !== undefined) return
        state.summary = SessionStore.foldSummary(state.summary, added)
        yield* writeSummary(key.projectKey, key.sessionId, { mtime: yield* mtimeOf(file), data: state.summary })
      }).pipe(
        // After a failed write the file is read again: what it holds is not known here.
        Effect.onError(() => Effect.sync(() => states.delete(file)))
      )
    ).pipe(Effect.mapError(failIn("append", key, file)))
  }

  const sessionFiles = (projectKey: string) =>
    fs.readDirectory(path.join(root, projectKey)).pipe(
      NotFound.orElse([] as Array<string>),
      Effect.map((names) => names.filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -".jsonl".length)))
    )

  const listSessions = (projectKey: string) =>
    Effect.flatMap(sessionFiles(projectKey), (ids) =>
      Effect.forEach(ids, (sessionId) =>
        Effect.map(mtimeOf(fileOf({ projectKey, sessionId })), (mtime) => ({ sessionId, mtime })))).pipe(
        Effect.mapError(fail("listSessions", projectKey))
      )

  const listSessionSummaries = (projectKey: string) =>
    Effect.flatMap(sessionFiles(projectKey), (ids) =>
      Effect.forEach(ids, (sessionId) =>
        Effect.flatMap(readSummary(projectKey, sessionId), Option.match({
          onSome: (summary): Effect.Effect<Array<SessionStore.SessionSummary>, unknown> =>
            Effect.succeed([{ sessionId, ...summary }]),
          onNone: () => {
            const file = fileOf({ projectKey, sessionId })
            // Folded as it is read, with its last line as `load` gives it. One with a line that is no JSON
            // object is left out, as the SDK's contract lets a session without a summary be: its `load` names
            // the line, and the other sessions are listed.
            return Effect.all([foldFile(file, emptyState(), true), mtimeOf(file)]).pipe(
              Effect.map(([scanned, mtime]) => {
                const last = Jsonl.objectOf(scanned.tail) as SessionStore.Entry | undefined
                const data = last === undefined ? scanned.summary : SessionStore.foldSummary(scanned.summary, [last])
                return data === undefined ? [] : [{ sessionId, mtime, data }]
              }),
              Effect.catchIf((e) => e instanceof Jsonl.BadLine, () => Effect.succeed([]))
            )
          }
        })))).pipe(
        Effect.map((lists) => lists.flat()),
        Effect.mapError(fail("listSessionSummaries", projectKey))
      )

  const listSubkeys = (key: Omit<SessionStore.SessionKey, "subpath">) =>
    Walk.files(fs, path, path.join(root, key.projectKey, key.sessionId), isJsonl).pipe(
      Effect.map((names) => names.map((n) => n.slice(0, -".jsonl".length))),
      NotFound.orElse([] as Array<string>),
      Effect.mapError(fail("listSubkeys", Keys.keyString(key)))
    )

  const remove = (key: SessionStore.SessionKey) =>
    exclusive(fileOf({ ...key, subpath: undefined }), Effect.gen(function*() {
      const main = fileOf({ ...key, subpath: undefined })
      const dir = path.join(root, key.projectKey, key.sessionId)
      for (const target of [main, summaryFileOf(key.projectKey, key.sessionId), dir]) {
        yield* fs.remove(target, { recursive: true }).pipe(NotFound.orElse(undefined))
      }
      for (const file of states.keys()) if (file === main || file.startsWith(dir + path.sep)) states.delete(file)
    })).pipe(Effect.mapError(fail("delete", key)))

  const findProjects = (sessionId: string) =>
    fs.readDirectory(root).pipe(
      NotFound.orElse([] as Array<string>),
      Effect.flatMap((projectKeys) =>
        Effect.filter(projectKeys.sort(), (projectKey) => fs.exists(fileOf({ projectKey, sessionId })))
      ),
      Effect.mapError(fail("findProjects", sessionId))
    )

  // The project directories (no index: a query reads every session of them).
  const listProjects = () =>
    fs.readDirectory(root).pipe(
      NotFound.orElse([] as Array<string>),
      Effect.flatMap((names) =>
        Effect.filter(names.sort(), (name) =>
          fs.stat(path.join(root, name)).pipe(Effect.map((info) => info.type === "Directory"), NotFound.orElse(false)))
      ),
      Effect.mapError(fail("listSessions", "every project"))
    )

  return Keys.validating({
    append,
    load: (key) => read(fileOf(key)).pipe(Effect.mapError(failIn("load", key, fileOf(key)))),
    listSessions,
    listSessionSummaries,
    listSubkeys,
    delete: remove,
    findProjects,
    listProjects
  })
})


/**
 * {@link SessionStore.SessionStore} in a directory of JSONL files (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (root: string): Layer.Layer<SessionStore.SessionStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SessionStore.SessionStore, make(root))
