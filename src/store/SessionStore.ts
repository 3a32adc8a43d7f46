/**
 * Where session transcripts are kept besides the CLI's config directory, with the official SDK's
 * `SessionStore` contract: `append` (idempotent by entry `uuid`), `load`, `listSessions`,
 * `listSessionSummaries`, `listSubkeys`, `delete`. Entries are transcript lines as JSON objects, kept as
 * written. Each store keeps a summary per session (what listing it shows: title, first prompt, cwd, branch,
 * times, size), folded by {@link foldSummary} from the entries each append adds, so listing reads one summary
 * per session and never the entries. Two stores here: in memory (tests) and a directory of JSONL files (the
 * embedded default); {@link materialize} writes a stored session into a config directory, so that the CLI
 * resumes a session it has never seen.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as Transcript from "../schema/Transcript.ts"
import { causeText } from "../internal/causeText.ts"
import * as Walk from "../internal/walk.ts"
import * as Fencing from "./internal/fencing.ts"
import * as Info from "./internal/info.ts"
import * as Jsonl from "./internal/jsonl.ts"
import * as LockFile from "./internal/lockFile.ts"
import * as NotFound from "./internal/notFound.ts"
import {
  AmbiguousSession,
  type Entry,
  InvalidEntry,
  InvalidKey,
  keyString,
  Operation,
  operationFailed,
  type SessionKey,
  SessionNotFound,
  SessionStore,
  SessionStoreError,
  type SessionSummary,
  type Shape,
  type SummaryData,
  TranscriptConflict
} from "./StoreContract.ts"
import * as StoredSummary from "./internal/storedSummary.ts"

// The transcripts of a session directory, as the CLI names them.
const isJsonl = (name: string): boolean => name.endsWith(".jsonl")

export * from "./StoreContract.ts"

/**
 * A session's summary with `entries` (those an append added to its main transcript, never a replayed one)
 * folded in; `undefined` for a session without one yet. Pure: a store calls it inside `append`, serialized
 * per session. Entries that are not transcript entries count in `bytes` only.
 *
 * @since 0.1.0
 * @category summaries
 */
export const foldSummary = (summary: SummaryData | undefined, entries: ReadonlyArray<Entry>): SummaryData => {
  let bytes = summary?.bytes ?? 0
  const decoded: Array<Transcript.Entry> = []
  for (const entry of entries) {
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1
    const result = Transcript.decodeEntry(entry)
    if (Result.isSuccess(result)) decoded.push(result.success)
  }
  return { ...Info.fold(summary ?? Info.empty, decoded, "whole"), bytes }
}

// The entries of `entries` to append: those whose uuid is not yet held (nor earlier in the batch).
const fresh = (held: Set<string>, entries: ReadonlyArray<Entry>): Array<Entry> =>
  entries.filter((entry) => {
    if (typeof entry.uuid !== "string") return true
    if (held.has(entry.uuid)) return false
    held.add(entry.uuid)
    return true
  })

/**
 * A batch without the entries whose uuid came earlier in it; entries without a uuid are all kept.
 *
 * @since 0.1.0
 * @category utils
 */
export const distinct = (entries: ReadonlyArray<Entry>): Array<Entry> => fresh(new Set(), entries)

// Why a name is no file or directory name a store can keep, if it is not.
const badName = (name: string): string | undefined =>
  name === ""
    ? "is empty"
    : name === "." || name === ".."
    ? "names a directory relative to another"
    : /[\\/]/.test(name)
    ? "has a path separator"
    : name.includes("\0")
    ? "has a NUL character"
    : undefined

// Why a subpath is not names joined by `/`, naming the part that is not one.
const badSubpath = (subpath: string): string | undefined => {
  for (const part of subpath.split("/")) {
    const why = badName(part)
    if (why !== undefined) return `its part ${JSON.stringify(part)} ${why}`
  }
  return undefined
}

/**
 * Checks the parts of a key a store is given: `projectKey` and `sessionId` are each a name (not empty, not
 * `.` or `..`, without a path separator or a NUL), a `subpath` is names joined by `/`. Fails with `InvalidKey`
 * naming the part.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateKey = (
  operation: Operation,
  key: { readonly projectKey?: string | undefined; readonly sessionId?: string | undefined; readonly subpath?: string | undefined }
): Effect.Effect<void, SessionStoreError> => {
  const problem = (field: "projectKey" | "sessionId" | "subpath", value: string, detail: string | undefined) =>
    detail === undefined ? undefined : new InvalidKey({ operation, field, value, detail })
  const name = (why: string | undefined) => why === undefined ? undefined : `it ${why}`
  const reason = (key.projectKey === undefined ? undefined : problem("projectKey", key.projectKey, name(badName(key.projectKey)))) ??
    (key.sessionId === undefined ? undefined : problem("sessionId", key.sessionId, name(badName(key.sessionId)))) ??
    (key.subpath === undefined ? undefined : problem("subpath", key.subpath, badSubpath(key.subpath)))
  return reason === undefined ? Effect.void : Effect.fail(new SessionStoreError({ reason }))
}

/**
 * `store` refusing, with `InvalidKey`, every key {@link validateKey} refuses, before `store` sees it. Every
 * store here is made so.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validating = (store: Shape): Shape => ({
  append: (key, entries, fence) => Effect.andThen(validateKey("append", key), store.append(key, entries, fence)),
  load: (key) => Effect.andThen(validateKey("load", key), store.load(key)),
  listSessions: (projectKey) => Effect.andThen(validateKey("listSessions", { projectKey }), store.listSessions(projectKey)),
  listSessionSummaries: (projectKey) =>
    Effect.andThen(validateKey("listSessionSummaries", { projectKey }), store.listSessionSummaries(projectKey)),
  listSubkeys: (key) => Effect.andThen(validateKey("listSubkeys", { ...key, subpath: undefined }), store.listSubkeys(key)),
  delete: (key) => Effect.andThen(validateKey("delete", { ...key, subpath: undefined }), store.delete(key)),
  ...(store.findProjects !== undefined && {
    findProjects: (sessionId: string) => Effect.andThen(validateKey("findProjects", { sessionId }), store.findProjects!(sessionId))
  }),
  ...(store.leases !== undefined && { leases: store.leases })
})

/**
 * Finds a session by its id alone: the key of the one project of the store that holds it. Fails with
 * `SessionNotFound` when none does (or the store has no `findProjects`), and with `AmbiguousSession` naming
 * the projects when several do.
 *
 * @since 0.1.0
 * @category utils
 */
export const locate = (store: Shape, sessionId: string): Effect.Effect<Omit<SessionKey, "subpath">, SessionStoreError> => {
  const notFound = (detail: string) => Effect.fail(new SessionStoreError({ reason: new SessionNotFound({ sessionId, detail }) }))
  if (store.findProjects === undefined) return notFound("this store cannot find sessions by id alone (it has no findProjects): give its projectKey")
  return Effect.flatMap(store.findProjects(sessionId), (projectKeys) =>
    projectKeys.length === 1
      ? Effect.succeed({ projectKey: projectKeys[0]!, sessionId })
      : projectKeys.length === 0
      ? notFound("no project of the store holds it")
      : Effect.fail(new SessionStoreError({ reason: new AmbiguousSession({ sessionId, projectKeys: [...projectKeys].sort() }) })))
}

/**
 * A store in memory, for tests and short-lived processes. Its leases fence the writers of this process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (): Shape => {
  const transcripts = new Map<string, {
    readonly key: SessionKey
    entries: Array<Entry>
    uuids: Set<string>
    mtime: number
    summary: SummaryData | undefined
  }>()
  const tokens = new Map<string, number>()
  const current = (lease: string) => tokens.get(lease) ?? 0
  return validating({
    append: (key, entries, fence) =>
      Effect.suspend(() => {
        if (fence !== undefined && current(fence.lease) !== fence.token) {
          return Effect.fail(Fencing.refused("append", key, fence, current(fence.lease)))
        }
        const id = keyString(key)
        const held = transcripts.get(id) ?? { key, entries: [], uuids: new Set<string>(), mtime: 0, summary: undefined }
        // Stored as JSON round-trips them: a caller's later mutation does not reach the store.
        const added = fresh(held.uuids, entries).map((e) => JSON.parse(JSON.stringify(e)) as Entry)
        if (added.length === 0) return Effect.void
        transcripts.set(id, held)
        held.entries.push(...added)
        held.mtime = Date.now()
        if (key.subpath === undefined) held.summary = foldSummary(held.summary, added)
        return Effect.void
      }),
    load: (key) => Effect.sync(() => Option.map(Option.fromUndefinedOr(transcripts.get(keyString(key))), (t) => [...t.entries])),
    listSessions: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()].filter((t) => t.key.projectKey === projectKey && t.key.subpath === undefined)
          .map((t) => ({ sessionId: t.key.sessionId, mtime: t.mtime }))
      ),
    listSessionSummaries: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) =>
          t.key.projectKey === projectKey && t.summary !== undefined
            ? [{ sessionId: t.key.sessionId, mtime: t.mtime, data: t.summary }]
            : []
        )
      ),
    listSubkeys: (key) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) =>
          t.key.projectKey === key.projectKey && t.key.sessionId === key.sessionId && t.key.subpath !== undefined
            ? [t.key.subpath]
            : []
        )
      ),
    delete: (key) =>
      Effect.sync(() => {
        for (const [id, t] of transcripts) {
          if (t.key.projectKey === key.projectKey && t.key.sessionId === key.sessionId) transcripts.delete(id)
        }
      }),
    findProjects: (sessionId) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) => t.key.sessionId === sessionId && t.key.subpath === undefined ? [t.key.projectKey] : [])
      ),
    leases: {
      acquire: (lease) => Effect.sync(() => ({ lease, token: tokens.set(lease, current(lease) + 1).get(lease)! })),
      current: (lease) => Effect.sync(() => current(lease))
    }
  })
}

interface State {
  readonly uuids: Set<string>
  summary: SummaryData | undefined
  bytes: number
  lines: number
}

const emptyState = (): State => ({ uuids: new Set(), summary: undefined, bytes: 0, lines: 0 })

/**
 * A store in a directory, laid out as the CLI's projects directory, plus one summary file per session:
 *
 * - `<root>/<projectKey>/<sessionId>.jsonl`: the main transcript, one entry per line, in append order;
 * - `<root>/<projectKey>/<sessionId>/<subpath>.jsonl`: the transcripts under it (subagents);
 * - `<root>/<projectKey>/<sessionId>.summary.json`: `{ "mtime", "data" }`, the session's {@link SessionSummary}
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
 * @since 0.1.0
 * @category constructors
 */
export const makeDirectory = Effect.fnUntraced(function*(root: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // Per transcript file: the fiber of this store appending to it (others wait here, not on its lock file).
  const locks = new Map<string, Semaphore.Semaphore>()
  // Per transcript file: the uuids it holds, its size and lines up to there and, for a main one, its summary.
  const states = new Map<string, State>()
  const fileOf = (key: SessionKey) =>
    path.join(root, key.projectKey, key.subpath === undefined ? `${key.sessionId}.jsonl` : path.join(key.sessionId, `${key.subpath}.jsonl`))
  const summaryFileOf = (projectKey: string, sessionId: string) => path.join(root, projectKey, `${sessionId}.summary.json`)
  const fail = operationFailed
  // As `fail`, but a line that is no JSON object is `InvalidEntry`, naming the file and the line.
  const failIn = (operation: Operation, key: SessionKey | string, file: string) => (cause: unknown): SessionStoreError =>
    cause instanceof Jsonl.BadLine
      ? new SessionStoreError({
        reason: new InvalidEntry({
          operation,
          key: typeof key === "string" ? key : keyString(key),
          detail: `line ${cause.line} of ${file} is not a JSON object: ${causeText(cause.cause)}`,
          cause: cause.cause
        })
      })
      : fail(operation, key)(cause)
  const readText = (file: string) => fs.readFileString(file).pipe(Effect.map(Option.some), NotFound.orElse(Option.none<string>()))
  // Every entry of a file, read line by line; a last line nobody terminated (an append under way, or one cut
  // off) is left out unless it is a whole JSON object.
  const read = (file: string) => {
    const entries: Array<Entry> = []
    return Jsonl.scan(fs, file, { offset: 0, lines: 0 }, (entry) => entries.push(entry as Entry)).pipe(
      Effect.map((scanned) => {
        const last = Jsonl.objectOf(scanned.tail)
        if (last !== undefined) entries.push(last as Entry)
        return Option.some<ReadonlyArray<Entry>>(entries)
      }),
      NotFound.orElse(Option.none<ReadonlyArray<Entry>>())
    )
  }
  const mtimeOf = (file: string) =>
    Effect.map(fs.stat(file), (info) => Option.match(info.mtime, { onNone: () => 0, onSome: (d) => Math.floor(d.getTime()) }))
  // A summary file that cannot be read, parsed or checked is as good as none: the transcript is folded again
  // (and the next append writes it anew), so a corrupt file never lists garbage.
  const readSummary = (projectKey: string, sessionId: string) =>
    readText(summaryFileOf(projectKey, sessionId)).pipe(
      Effect.map(Option.flatMap((text) => Option.liftThrowable(() => JSON.parse(text) as Omit<SessionSummary, "sessionId">)())),
      Effect.map(Option.filter((s) => typeof s?.mtime === "number" && StoredSummary.problem(s.data) === undefined))
    )
  const writeSummary = (projectKey: string, sessionId: string, summary: Omit<SessionSummary, "sessionId">) => {
    const file = summaryFileOf(projectKey, sessionId)
    return fs.writeFileString(`${file}.tmp`, JSON.stringify(summary)).pipe(Effect.andThen(fs.rename(`${file}.tmp`, file)))
  }

  const sizeOf = (file: string) => Effect.map(fs.stat(file), (info) => Number(info.size)).pipe(NotFound.orElse(0))

  // `effect` alone among this store's fibers on `file`.
  const exclusive = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      let semaphore = locks.get(file)
      if (semaphore === undefined) locks.set(file, semaphore = Semaphore.makeUnsafe(1))
      return semaphore.withPermits(1)(effect)
    })
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
    const entry = Jsonl.objectOf(scanned.tail) as Entry | undefined
    return entry === undefined
      ? Effect.as(fs.truncate(file, scanned.end), { entry, bytes: scanned.end })
      : Effect.as(fs.writeFileString(file, "\n", { flag: "a" }), { entry, bytes: scanned.end + Buffer.byteLength(scanned.tail) + 1 })
  }

  // The file's state, under its lock: read from where this store's knowledge ends (all of it at first),
  // keeping the uuids and, when the summary is to be folded, the entries in batches.
  const stateOf = (key: SessionKey, file: string) =>
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
      fresh(state.uuids, entries)
      if (folding && entries.length > 0) state.summary = foldSummary(state.summary, entries)
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
    let batch: Array<Entry> = []
    const flush = () => {
      if (folding && batch.length > 0) state.summary = foldSummary(state.summary, batch)
      batch = []
    }
    return Jsonl.scan(fs, file, { offset: state.bytes, lines: state.lines }, (entry) => {
      if (typeof entry.uuid === "string") state.uuids.add(entry.uuid)
      if (!folding) return
      batch.push(entry as Entry)
      if (batch.length >= 1000) flush()
    }).pipe(
      NotFound.orElse({ lines: 0, end: 0, tail: "" }),
      Effect.tap(() => Effect.sync(flush)),
      Effect.map((scanned) => ({ ...scanned, summary: state.summary }))
    )
  }

  const append = (key: SessionKey, entries: ReadonlyArray<Entry>) => {
    const file = fileOf(key)
    return holding(
      file,
      Effect.gen(function*() {
        const state = yield* stateOf(key, file)
        const added = fresh(state.uuids, entries)
        if (added.length === 0) return
        const text = added.map((e) => JSON.stringify(e) + "\n").join("")
        yield* fs.writeFileString(file, text, { flag: "a" })
        state.bytes += Buffer.byteLength(text)
        state.lines += added.length
        if (key.subpath !== undefined) return
        state.summary = foldSummary(state.summary, added)
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
          onSome: (summary): Effect.Effect<Array<SessionSummary>, unknown> =>
            Effect.succeed([{ sessionId, ...summary }]),
          onNone: () => {
            const file = fileOf({ projectKey, sessionId })
            // Folded as it is read, with its last line as `load` gives it. One with a line that is no JSON
            // object is left out, as the SDK's contract lets a session without a summary be: its `load` names
            // the line, and the other sessions are listed.
            return Effect.all([foldFile(file, emptyState(), true), mtimeOf(file)]).pipe(
              Effect.map(([scanned, mtime]) => {
                const last = Jsonl.objectOf(scanned.tail) as Entry | undefined
                const data = last === undefined ? scanned.summary : foldSummary(scanned.summary, [last])
                return data === undefined ? [] : [{ sessionId, mtime, data }]
              }),
              Effect.catchIf((e) => e instanceof Jsonl.BadLine, () => Effect.succeed([]))
            )
          }
        })))).pipe(
        Effect.map((lists) => lists.flat()),
        Effect.mapError(fail("listSessionSummaries", projectKey))
      )

  const listSubkeys = (key: Omit<SessionKey, "subpath">) =>
    Walk.files(fs, path, path.join(root, key.projectKey, key.sessionId), isJsonl).pipe(
      Effect.map((names) => names.map((n) => n.slice(0, -".jsonl".length))),
      NotFound.orElse([] as Array<string>),
      Effect.mapError(fail("listSubkeys", keyString(key)))
    )

  const remove = (key: SessionKey) =>
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

  return validating({
    append,
    load: (key) => read(fileOf(key)).pipe(Effect.mapError(failIn("load", key, fileOf(key)))),
    listSessions,
    listSessionSummaries,
    listSubkeys,
    delete: remove,
    findProjects
  })
})

/**
 * {@link SessionStore} in memory.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<SessionStore> = Layer.sync(SessionStore, makeMemory)

/**
 * {@link SessionStore} in a directory of JSONL files.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDirectory = (root: string): Layer.Layer<SessionStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SessionStore, makeDirectory(root))

// A transcript line as a JSON object; `undefined` for a line that is not one.
const entryOfLine = (line: string): Entry | undefined => Jsonl.objectOf(line) as Entry | undefined

// An entry's JSON with every object's keys sorted: entries without a uuid are compared by it, since a store
// may give keys back in another order.
const canonical = (entry: Entry): string =>
  JSON.stringify(entry, (_, value: unknown) =>
    Predicate.isObject(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
      : value)

// What materializing writes to one file: `head` (the local file as it is, or the stored entries), then the
// local lines numbered in `kept` (after stored entries: the local ones the store lacks), then `tail`; the
// local file moved to `aside` first, when given.
interface Plan {
  readonly file: string
  readonly aside?: string | undefined
  readonly head: "local" | ReadonlyArray<Entry>
  readonly kept: ReadonlySet<number>
  readonly tail: string
}

const jsonLines = (lines: ReadonlyArray<string>): string => lines.map((line) => line + "\n").join("")

/**
 * Writes a stored session (and its subpaths) into a CLI config directory, under the project key of the
 * directory the CLI will run in, so that `--resume <sessionId>` finds it. Returns whether the store held it.
 *
 * The SDK writes the stored entries into a temporary config directory of its own, where no local transcript
 * meets them; here they go into the run's config directory, which may already hold the session, so each file
 * there is reconciled with its stored entries, and no entry of either is lost:
 * - entries with a uuid are compared by it (the CLI keeps lines it does not mirror, so the two are not equal
 *   line for line); entries without one (titles, tags, the last prompt) by type and content, keys in any order;
 * - a local file that holds every stored uuid (the store missed some entries, say after a `mirror_error`) is
 *   kept as it is, followed by the stored entries without a uuid it lacks (a title or tag set through the
 *   store, which the CLI then reads as the latest); when it lacks none, it is not written at all;
 * - a local file lacking stored uuids, all of its own being stored, becomes the stored entries, followed by
 *   its entries without a uuid the store lacks (a title or tag set on this machine);
 * - a local file with uuids the store lacks, lacking some it holds, fails with `TranscriptConflict`; with
 *   `onConflict: "store"` it is moved aside (`<file>.aside-<time>`) and the stored entries written instead.
 * So materializing again writes nothing. Every file (the main transcript and its subpaths) is decided before
 * any is written: a conflict or a key that is not a name (see {@link validateKey}, `InvalidKey`) anywhere
 * writes nothing. Each file is written aside and then renamed, so a failed write leaves no partial transcript.
 * A subpath's `agent_metadata` entries (a subagent's `.meta.json`, as the CLI mirrors it) are not transcript
 * lines: the last one, without its `type`, becomes the subagent's `.meta.json`, as the SDK writes it; so
 * does the last archive mark ({@link archiveSubpath}) become the session's `archived.json`.
 *
 * @since 0.1.0
 * @category resume
 */
export const materialize = Effect.fnUntraced(function*(
  store: Shape,
  key: Omit<SessionKey, "subpath">,
  target: { readonly configDir: string; readonly projectKey: string; readonly onConflict?: "fail" | "store" | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.join(target.configDir, "projects", target.projectKey)
  const failed = operationFailed("materialize", key)
  // The local file's uuids, which of `markers` (stored entries without a uuid) it holds, the numbers of its
  // entries without a uuid that are not among them, and whether it ends with a newline; `None` for no file.
  const scan = (file: string, markers: ReadonlyMap<string, Entry>) => {
    let last = "\n"
    return fs.stream(file).pipe(
      Stream.decodeText,
      Stream.tap((text) => Effect.sync(() => (last = text.at(-1) ?? last))),
      Stream.splitLines,
      Stream.runFold(() => ({ n: 0, uuids: new Set<string>(), held: new Set<string>(), unstored: new Set<number>() }), (local, line) => {
        const entry = entryOfLine(line)
        if (entry !== undefined && typeof entry.uuid === "string") local.uuids.add(entry.uuid)
        else if (entry !== undefined) {
          const text = canonical(entry)
          if (markers.has(text)) local.held.add(text)
          else local.unstored.add(local.n)
        }
        local.n++
        return local
      }),
      Effect.map((local) => Option.some({ ...local, newline: last === "\n" })),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeedNone)
    )
  }
  const decide = (file: string, entries: ReadonlyArray<Entry>) =>
    Effect.gen(function*() {
      const markers = new Map(entries.flatMap((e) => typeof e.uuid === "string" ? [] : [[canonical(e), e] as const]))
      const found = yield* scan(file, markers)
      if (Option.isNone(found)) return Option.some<Plan>({ file, head: entries, kept: new Set(), tail: "" })
      const local = found.value
      const stored = new Set(entries.flatMap((e) => typeof e.uuid === "string" ? [e.uuid] : []))
      const storedOnly = [...stored].filter((uuid) => !local.uuids.has(uuid)).length
      const localOnly = [...local.uuids].filter((uuid) => !stored.has(uuid)).length
      if (storedOnly > 0 && localOnly > 0 && target.onConflict === "store") {
        return Option.some<Plan>({ file, aside: `${file}.aside-${Date.now()}`, head: entries, kept: new Set(), tail: "" })
      }
      if (storedOnly > 0 && localOnly > 0) {
        return yield* Effect.fail(new SessionStoreError({
          reason: new TranscriptConflict({ key: keyString(key), path: file, localOnly, storedOnly })
        }))
      }
      if (storedOnly > 0) return Option.some<Plan>({ file, head: entries, kept: local.unstored, tail: "" })
      const lacking = [...markers].flatMap(([text, entry]) => local.held.has(text) ? [] : [JSON.stringify(entry)])
      if (lacking.length === 0) return Option.none<Plan>()
      // A torn last line stays a line of its own.
      return Option.some<Plan>({ file, head: "local", kept: new Set(), tail: (local.newline ? "" : "\n") + jsonLines(lacking) })
    }).pipe(Effect.mapError(failed))
  const write = (plan: Plan) => {
    const aside = `${plan.file}.${crypto.randomUUID()}.tmp`
    return fs.makeDirectory(path.dirname(plan.file), { recursive: true }).pipe(
      Effect.andThen(
        plan.head === "local"
          ? fs.copyFile(plan.file, aside)
          : fs.writeFileString(aside, jsonLines(plan.head.map((e) => JSON.stringify(e))))
      ),
      Effect.andThen(
        plan.kept.size === 0 ? Effect.void : fs.stream(plan.file).pipe(
          Stream.decodeText,
          Stream.splitLines,
          Stream.zipWithIndex,
          Stream.filterMap(([line, n]) => plan.kept.has(n) ? Result.succeed(line + "\n") : Result.failVoid),
          Stream.encodeText,
          Stream.run(fs.sink(aside, { flag: "a" }))
        )
      ),
      Effect.andThen(plan.tail === "" ? Effect.void : fs.writeFileString(aside, plan.tail, { flag: "a" })),
      Effect.andThen(plan.aside === undefined ? Effect.void : fs.copyFile(plan.file, plan.aside)),
      Effect.andThen(fs.rename(aside, plan.file)),
      Effect.onError(() => Effect.ignore(fs.remove(aside))),
      Effect.mapError(failed)
    )
  }
  // Every file written is under the session's project directory, never outside it.
  yield* validateKey("materialize", { ...key, subpath: undefined })
  yield* validateKey("materialize", { projectKey: target.projectKey })
  const main = yield* store.load(key)
  if (Option.isNone(main) || main.value.length === 0) return false
  const plans = [yield* decide(path.join(dir, `${key.sessionId}.jsonl`), main.value)]
  // A subagent's metadata is stored among its entries (as the CLI mirrors it) and goes back to its sidecar.
  const sidecars: Array<readonly [file: string, metadata: Entry]> = []
  for (const subpath of yield* store.listSubkeys(key)) {
    yield* validateKey("materialize", { ...key, subpath })
    const entries = yield* store.load({ ...key, subpath })
    if (Option.isNone(entries)) continue
    if (subpath === archiveSubpath) {
      const mark = entries.value.at(-1)
      if (mark !== undefined) sidecars.push([path.join(dir, key.sessionId, "archived.json"), mark])
      continue
    }
    const file = path.join(dir, key.sessionId, `${subpath}.jsonl`)
    const transcript = entries.value.filter((e) => e.type !== agentMetadata)
    if (transcript.length > 0) plans.push(yield* decide(file, transcript))
    const metadata = entries.value.findLast((e) => e.type === agentMetadata)
    if (metadata !== undefined) sidecars.push([file.replace(/\.jsonl$/, ".meta.json"), metadata])
  }
  for (const plan of plans) if (Option.isSome(plan)) yield* write(plan.value)
  for (const [file, { type: _, ...metadata }] of sidecars) {
    yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
      Effect.andThen(fs.writeFileString(file, JSON.stringify(metadata))),
      Effect.mapError(failed)
    )
  }
  return true
})

// The entry type a subagent's `.meta.json` takes in a store, as the CLI mirrors it and the SDK imports it.
const agentMetadata = "agent_metadata"

/**
 * The subpath under which a store keeps a session's archive marks (`StoredSessions.archiveSession`), one
 * entry per change, the last one holding: what the SDK keeps beside a transcript as `<session id>/archived.json`,
 * which {@link materialize} writes back and {@link importSession} reads.
 *
 * @since 0.1.0
 * @category resume
 */
export const archiveSubpath = "archived"

/**
 * Copies a session of a CLI config directory into a store, as the SDK's `importSessionToStore`: its main
 * transcript and, unless `includeSubagents` is `false`, the transcripts under it, each read as a stream and
 * appended `batchSize` entries at a time (default 500), each subagent's `.meta.json` after its transcript as
 * an `agent_metadata` entry, and an archive mark (`archived.json`) under {@link archiveSubpath}. The store's key is `source`'s unless `projectKey`
 * says otherwise. Appends are idempotent by uuid: importing again adds only the entries without one.
 *
 * @since 0.1.0
 * @category resume
 */
export const importSession = Effect.fnUntraced(function*(
  store: Shape,
  source: { readonly configDir: string; readonly projectKey: string; readonly sessionId: string },
  options: {
    readonly projectKey?: string | undefined
    readonly includeSubagents?: boolean | undefined
    readonly batchSize?: number | undefined
  } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const key = { projectKey: options.projectKey ?? source.projectKey, sessionId: source.sessionId }
  const dir = path.join(source.configDir, "projects", source.projectKey)
  const failed = operationFailed("import", key)
  yield* validateKey("import", { projectKey: source.projectKey, sessionId: source.sessionId })
  const copy = (file: string, subpath: string | undefined) =>
    fs.stream(file).pipe(
      Stream.decodeText,
      Stream.splitLines,
      Stream.filter((line) => line.trim() !== ""),
      Stream.mapEffect((line) => Effect.try({ try: () => JSON.parse(line) as Entry, catch: failed })),
      Stream.grouped(Math.max(1, options.batchSize ?? 500)),
      Stream.runForEach((batch) => store.append({ ...key, subpath }, batch)),
      Effect.catchTag("PlatformError", (cause) => Effect.fail(failed(cause)))
    )
  yield* copy(path.join(dir, `${source.sessionId}.jsonl`), undefined)
  if (options.includeSubagents === false) return
  const under = path.join(dir, source.sessionId)
  const names = yield* Walk.files(fs, path, under, isJsonl).pipe(
    NotFound.orElse([] as ReadonlyArray<string>),
    Effect.mapError(failed)
  )
  // A JSON object beside the transcripts; an unreadable one is left out, as the SDK does.
  const sidecar = (file: string) =>
    fs.readFileString(file).pipe(
      Effect.map((text) => Option.filter(Option.liftThrowable(() => JSON.parse(text) as unknown)(), Predicate.isObject)),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeedNone),
      Effect.mapError(failed)
    )
  // The archive mark, as its own subpath.
  const mark = yield* sidecar(path.join(under, "archived.json"))
  if (Option.isSome(mark)) yield* store.append({ ...key, subpath: archiveSubpath }, [{ ...mark.value, type: archiveSubpath }])
  for (const name of names) {
    const subpath = name.slice(0, -".jsonl".length).split(path.sep).join("/")
    yield* copy(path.join(under, name), subpath)
    const metadata = yield* sidecar(path.join(under, name.replace(/\.jsonl$/, ".meta.json")))
    if (Option.isSome(metadata)) {
      yield* store.append({ ...key, subpath }, [{ ...metadata.value, type: agentMetadata }])
    }
  }
})

/**
 * The sessions of a project in a store, as `listSessions` gives them for files (title, first prompt, cwd,
 * branch, times; `fileSize` is the size of the entries as JSON lines), most recent first: from the store's
 * summaries, no entry read.
 *
 * @since 0.1.0
 * @category summaries
 */
export const listSessionInfo = (store: Shape, projectKey: string): Effect.Effect<Array<Info.SessionInfo>, SessionStoreError> =>
  Effect.map(store.listSessionSummaries(projectKey), (summaries) =>
    summaries.flatMap((summary) => {
      const info = Info.toInfo(summary.data, {
        sessionId: summary.sessionId,
        projectKey,
        lastModified: summary.mtime,
        fileSize: summary.data.bytes
      })
      return info === undefined ? [] : [info]
    }).sort((a, b) => b.lastModified - a.lastModified))
