/**
 * Where session transcripts are kept besides the CLI's config directory, with the official SDK's
 * `SessionStore` contract: `append` (idempotent by entry `uuid`), `load`, `listSessions`, `listSubkeys`,
 * `delete`. Entries are transcript lines as JSON objects, kept as written. Two stores here: in memory (tests)
 * and a directory of JSONL files (the embedded default); {@link materialize} writes a stored session into a
 * config directory, so that the CLI resumes a session it has never seen.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import * as Transcript from "../schema/Transcript.ts"
import * as Info from "./internal/info.ts"

/**
 * A transcript in the store: a session's main transcript, or one under it (`subpath`, e.g. `subagents/agent-<id>`).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionKey {
  readonly projectKey: string
  readonly sessionId: string
  readonly subpath?: string | undefined
}

/**
 * One transcript line as a JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly type: string
  readonly uuid?: string | undefined
  readonly [k: string]: unknown
}

/**
 * A store operation failed; `cause` says why.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>()("SessionStoreError", {
  operation: Schema.Literals(["append", "load", "listSessions", "listSubkeys", "delete"]),
  key: Schema.String,
  cause: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}(${this.key}) failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** Appends entries in order; an entry whose `uuid` the key already holds is skipped. */
  readonly append: (key: SessionKey, entries: ReadonlyArray<Entry>) => Effect.Effect<void, SessionStoreError>
  /** Every entry of a key in append order; `None` for a key never written. */
  readonly load: (key: SessionKey) => Effect.Effect<Option.Option<ReadonlyArray<Entry>>, SessionStoreError>
  /** The sessions of a project with their last write time (ms since the epoch). */
  readonly listSessions: (
    projectKey: string
  ) => Effect.Effect<ReadonlyArray<{ readonly sessionId: string; readonly mtime: number }>, SessionStoreError>
  /** The subpaths stored under a session (subagent transcripts). */
  readonly listSubkeys: (key: Omit<SessionKey, "subpath">) => Effect.Effect<ReadonlyArray<string>, SessionStoreError>
  /** Removes a session and everything under it. */
  readonly delete: (key: SessionKey) => Effect.Effect<void, SessionStoreError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SessionStore extends Context.Service<SessionStore, Shape>()("effect-claude-code/SessionStore") {}

/**
 * A key as one string (for errors and maps).
 *
 * @since 0.1.0
 * @category utils
 */
export const keyString = (key: SessionKey): string =>
  `${key.projectKey}/${key.sessionId}${key.subpath === undefined ? "" : `/${key.subpath}`}`

// The entries of `entries` to append: those whose uuid is not yet held (nor earlier in the batch).
const fresh = (held: Set<string>, entries: ReadonlyArray<Entry>): Array<Entry> =>
  entries.filter((entry) => {
    if (typeof entry.uuid !== "string") return true
    if (held.has(entry.uuid)) return false
    held.add(entry.uuid)
    return true
  })

/**
 * A store in memory, for tests and short-lived processes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (): Shape => {
  const transcripts = new Map<string, { readonly key: SessionKey; entries: Array<Entry>; uuids: Set<string>; mtime: number }>()
  return {
    append: (key, entries) =>
      Effect.sync(() => {
        const id = keyString(key)
        const held = transcripts.get(id) ?? { key, entries: [], uuids: new Set<string>(), mtime: 0 }
        transcripts.set(id, held)
        // Stored as JSON round-trips them: a caller's later mutation does not reach the store.
        held.entries.push(...fresh(held.uuids, entries).map((e) => JSON.parse(JSON.stringify(e)) as Entry))
        held.mtime = Date.now()
      }),
    load: (key) => Effect.sync(() => Option.map(Option.fromUndefinedOr(transcripts.get(keyString(key))), (t) => [...t.entries])),
    listSessions: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()].filter((t) => t.key.projectKey === projectKey && t.key.subpath === undefined)
          .map((t) => ({ sessionId: t.key.sessionId, mtime: t.mtime }))
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
      })
  }
}

/**
 * A store in a directory, laid out as the CLI's projects directory: `<root>/<projectKey>/<sessionId>.jsonl`,
 * subpaths under `<root>/<projectKey>/<sessionId>/`. Appends from this process are serialized; the uuids a
 * transcript holds are read once, at its first append.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeDirectory = Effect.fnUntraced(function*(root: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const lock = yield* Semaphore.make(1)
  const uuids = new Map<string, Set<string>>()
  const fileOf = (key: SessionKey) =>
    path.join(root, key.projectKey, key.subpath === undefined ? `${key.sessionId}.jsonl` : path.join(key.sessionId, `${key.subpath}.jsonl`))
  const fail = (operation: SessionStoreError["operation"], key: SessionKey | string) => (cause: unknown) =>
    new SessionStoreError({ operation, key: typeof key === "string" ? key : keyString(key), cause })
  const parse = (text: string): Array<Entry> =>
    text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Entry)
  const read = (file: string) =>
    fs.readFileString(file).pipe(
      Effect.map((text) => Option.some(parse(text))),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeedNone)
    )
  const entriesOrEmpty = (file: string) => Effect.map(read(file), Option.getOrElse((): ReadonlyArray<Entry> => []))

  const append = (key: SessionKey, entries: ReadonlyArray<Entry>) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const file = fileOf(key)
      let held = uuids.get(file)
      if (held === undefined) {
        held = new Set((yield* entriesOrEmpty(file)).flatMap((e) => typeof e.uuid === "string" ? [e.uuid] : []))
        uuids.set(file, held)
      }
      const lines = fresh(held, entries).map((e) => JSON.stringify(e) + "\n").join("")
      yield* fs.makeDirectory(path.dirname(file), { recursive: true })
      yield* fs.writeFileString(file, lines, { flag: "a" })
    })).pipe(Effect.mapError(fail("append", key)))

  const listSessions = (projectKey: string) =>
    Effect.gen(function*() {
      const dir = path.join(root, projectKey)
      const names = yield* fs.readDirectory(dir).pipe(
        Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeed([] as Array<string>))
      )
      return yield* Effect.forEach(names.filter((n) => n.endsWith(".jsonl")), (name) =>
        Effect.map(fs.stat(path.join(dir, name)), (info) => ({
          sessionId: name.slice(0, -".jsonl".length),
          mtime: Option.match(info.mtime, { onNone: () => 0, onSome: (d) => Math.floor(d.getTime()) })
        })))
    }).pipe(Effect.mapError(fail("listSessions", projectKey)))

  const listSubkeys = (key: Omit<SessionKey, "subpath">) =>
    fs.readDirectory(path.join(root, key.projectKey, key.sessionId), { recursive: true }).pipe(
      Effect.map((names) => names.filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -".jsonl".length)).sort()),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeed([] as Array<string>)),
      Effect.mapError(fail("listSubkeys", keyString(key)))
    )

  const remove = (key: SessionKey) =>
    lock.withPermits(1)(Effect.gen(function*() {
      for (const target of [fileOf({ ...key, subpath: undefined }), path.join(root, key.projectKey, key.sessionId)]) {
        yield* fs.remove(target, { recursive: true }).pipe(Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.void))
        for (const file of uuids.keys()) if (file.startsWith(target)) uuids.delete(file)
      }
    })).pipe(Effect.mapError(fail("delete", key)))

  return {
    append,
    load: (key) => read(fileOf(key)).pipe(Effect.mapError(fail("load", key))),
    listSessions,
    listSubkeys,
    delete: remove
  } satisfies Shape
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

/**
 * A store with where its sessions come from, for the `sessionStore` option of queries and sessions.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreOptions {
  readonly store: Shape
  /** The CLI's config directory (default: the run's `CLAUDE_CONFIG_DIR`, else `~/.claude`). */
  readonly configDir?: string | undefined
  /** The store's project key of the session to resume, when it ran in another directory (default: `cwd`'s). */
  readonly projectKey?: string | undefined
  /** Retries after a failed append (default 2: three attempts, as the SDK). */
  readonly retries?: number | undefined
}

/**
 * Writes a stored session (and its subpaths) into a CLI config directory, under the project key of the
 * directory the CLI will run in, so that `--resume <sessionId>` finds it. Returns whether the store held it.
 *
 * @since 0.1.0
 * @category resume
 */
export const materialize = Effect.fnUntraced(function*(
  store: Shape,
  key: Omit<SessionKey, "subpath">,
  target: { readonly configDir: string; readonly projectKey: string }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.join(target.configDir, "projects", target.projectKey)
  const write = (file: string, entries: ReadonlyArray<Entry>) =>
    fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
      Effect.andThen(fs.writeFileString(file, entries.map((e) => JSON.stringify(e) + "\n").join(""))),
      Effect.mapError((cause) => new SessionStoreError({ operation: "load", key: keyString(key), cause }))
    )
  const main = yield* store.load(key)
  if (Option.isNone(main) || main.value.length === 0) return false
  yield* write(path.join(dir, `${key.sessionId}.jsonl`), main.value)
  for (const subpath of yield* store.listSubkeys(key)) {
    // A subpath names a file under the session's directory, never outside it.
    if (subpath.split(/[\\/]/).includes("..") || path.isAbsolute(subpath)) continue
    const entries = yield* store.load({ ...key, subpath })
    if (Option.isSome(entries)) yield* write(path.join(dir, key.sessionId, `${subpath}.jsonl`), entries.value)
  }
  return true
})

/**
 * The sessions of a project in a store, as `listSessions` gives them for files (title, first prompt, cwd,
 * branch, times; `fileSize` is the size of the entries as JSON lines), most recent first. Each session is
 * loaded once.
 *
 * @since 0.1.0
 * @category summaries
 */
export const listSessionInfo = Effect.fnUntraced(function*(store: Shape, projectKey: string) {
  const out: Array<Info.SessionInfo> = []
  for (const { sessionId, mtime } of yield* store.listSessions(projectKey)) {
    const entries = Option.getOrElse(yield* store.load({ projectKey, sessionId }), (): ReadonlyArray<Entry> => [])
    const decoded = entries.flatMap((entry) => {
      const result = Transcript.decodeEntry(entry)
      return Result.isSuccess(result) ? [result.success] : []
    })
    const info = Info.fromEntries({
      sessionId,
      projectKey,
      head: decoded,
      tail: decoded,
      lastModified: mtime,
      fileSize: entries.reduce((n, e) => n + new TextEncoder().encode(JSON.stringify(e)).length + 1, 0)
    })
    if (info !== undefined) out.push(info)
  }
  return out.sort((a, b) => b.lastModified - a.lastModified)
})
