/**
 * {@link Sessions.Sessions} over a {@link SessionStore.Shape}, as the SDK's session functions given a
 * `sessionStore`: a session's info from its summary, its messages and its subagents' in conversation order read
 * from the store instead of a config directory, a fork into the store, a title and a tag appended as the CLI
 * writes them, archive marks (which the SDK refuses over a store) as a transcript of their own, which a resume
 * writes back as the SDK's `archived.json`. A session given its `projectKey` (or `dir`) is read from that
 * project without checking that the store holds it (a session it does not hold has no messages); by its id
 * alone, the store finds it (`findProjects`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Ast from "../filter/Ast.ts"
import * as Transcript from "../transcript/Transcript.ts"
import type * as TranscriptDecode from "../transcript/Decode.ts"
import * as Blank from "./internal/blank.ts"
import * as Chain from "./internal/chain.ts"
import * as Info from "./internal/info.ts"
import * as Keys from "./internal/keys.ts"
import * as StoredSummary from "./internal/storedSummary.ts"
import * as Subagent from "./internal/subagent.ts"
import * as ToolCalls from "./internal/toolCalls.ts"
import * as ProjectKey from "./ProjectKey.ts"
import * as SessionFiles from "./SessionFiles.ts"
import * as Sessions from "./Sessions.ts"
import * as SessionStore from "./SessionStore.ts"
import * as SessionTransfer from "./SessionTransfer.ts"

type Key = Omit<SessionStore.SessionKey, "subpath">
type Failure = SessionStore.SessionStoreError

// A stored transcript as decoded lines (line = position in the store); an entry the transcript schemas
// reject fails the read, as a bad line of a file does.
const records = (store: SessionStore.Shape, key: SessionStore.SessionKey) =>
  Stream.unwrap(Effect.map(store.load(key), (loaded) =>
    Stream.fromIterable(Option.getOrElse(loaded, (): ReadonlyArray<SessionStore.Entry> => [])).pipe(
      Stream.zipWithIndex,
      Stream.mapEffect(([entry, index]): Effect.Effect<TranscriptDecode.DecodedEntry, Failure> => {
        const decoded = Transcript.decodeEntry(entry)
        return Result.isSuccess(decoded)
          ? Effect.succeed({ line: index + 1, raw: JSON.stringify(entry), entry: decoded.success })
          : Effect.fail(new SessionStore.SessionStoreError({
            reason: new SessionStore.InvalidEntry({
              operation: "load",
              key: Keys.keyString(key),
              detail: `entry ${index + 1} is not a transcript entry: ${decoded.failure.message}`,
              cause: decoded.failure
            })
          }))
      })
    )))

// Whether a stored session is archived: its last mark, unless a prompt was sent after it (the transcript is
// read only for a session archived).
const archivedOf = (store: SessionStore.Shape, key: Key) =>
  Effect.flatMap(store.load({ ...key, subpath: Keys.archiveSubpath }), (marks) => {
    const last = Option.getOrUndefined(marks)?.at(-1)
    const mark = last === undefined ? undefined : Info.parseMark(JSON.stringify(last))
    if (mark?.archived !== true) return Effect.succeed(mark?.archived)
    return Effect.map(store.load(key), (entries) =>
      Info.archivedBy(
        mark,
        Option.getOrElse(entries, (): ReadonlyArray<SessionStore.Entry> => []).flatMap((entry) => {
          const decoded = Transcript.decodeEntry(entry)
          return Result.isSuccess(decoded) ? [decoded.success] : []
        })
      ))
  })

// The subagent transcripts stored under a session, by subpath, with their metadata (each transcript is
// loaded to find it).
const subagentsOf = (store: SessionStore.Shape, key: Key) =>
  Effect.flatMap(store.listSubkeys(key), (subpaths) =>
    Effect.forEach(
      subpaths.flatMap((subpath) => {
        const match = /(?:^|\/)agent-([^/]+)$/.exec(subpath)
        return match === null ? [] : [{ agentId: match[1]!, subpath }]
      }),
      ({ agentId, subpath }) =>
        Effect.map(store.load({ ...key, subpath }), (loaded): Sessions.SubagentInfo => {
          const entries = Option.getOrElse(loaded, (): ReadonlyArray<SessionStore.Entry> => [])
          const meta = entries.findLast((entry) => entry.type === "agent_metadata")
          return Subagent.info(agentId, subpath, meta ?? {})
        })
    ))

/**
 * Builds {@link Sessions.Sessions} over `store`. Forking materializes the session into a temporary config
 * directory (of the `FileSystem` in context), forks it there and appends the fork to the store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(store: SessionStore.Shape) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()

  // The project a lookup names: its `projectKey`, or that of its `dir` (the current directory's for `orCwd`).
  const projectOf = (lookup: Sessions.LookupOptions, orCwd: boolean): Effect.Effect<string | undefined> => {
    const dir = lookup.dir ?? (orCwd ? process.cwd() : undefined)
    return lookup.projectKey !== undefined || dir === undefined
      ? Effect.succeed(lookup.projectKey)
      : fs.realPath(dir).pipe(Effect.orElseSucceed(() => path.resolve(dir)), Effect.map(ProjectKey.fromPath))
  }

  // A session's key: in the project named, or the one project of the store that holds it.
  const keyOf = (sessionId: string, lookup: Sessions.LookupOptions): Effect.Effect<Key, Failure> =>
    Effect.flatMap(projectOf(lookup, false), (projectKey) =>
      projectKey === undefined ? Keys.locate(store, sessionId) : Effect.succeed({ projectKey, sessionId }))

  const listSessions = (options: Sessions.ListOptions = {}) =>
    Effect.flatMap(projectOf(options, true), (projectKey) =>
      Effect.map(StoredSummary.infos(store, projectKey!), (infos) => {
        const offset = options.offset ?? 0
        return infos.slice(offset, options.limit === undefined ? undefined : offset + options.limit)
      }))

  // Every project's sessions, or the project named's; narrowed by the store's tool-call index where it can.
  const selectSessions = (ast: Ast.Ast, options: Sessions.SelectOptions) =>
    Effect.gen(function*() {
      const named = yield* projectOf(options, false)
      const projects = named !== undefined
        ? [named]
        : store.listProjects !== undefined
        ? yield* store.listProjects()
        : [(yield* projectOf(options, true))!]
      const infos = (yield* Effect.forEach(projects, (projectKey) => StoredSummary.infos(store, projectKey))).flat()
        .sort((a, b) => b.lastModified - a.lastModified)
      const query = options.index === false || store.toolCalls === undefined ? undefined : ToolCalls.queryOf(ast)
      if (query === undefined) return infos
      const found = new Set((yield* store.toolCalls!.sessions(query, named)).map(Keys.keyString))
      return infos.filter((info) => found.has(Keys.keyString(info)))
    })

  const getSessionInfo = (sessionId: string, options: Sessions.LookupOptions = {}) =>
    keyOf(sessionId, options).pipe(
      Effect.flatMap((key) =>
        Effect.flatMap(StoredSummary.infos(store, key.projectKey), (infos) => {
          const info = infos.find((i) => i.sessionId === key.sessionId)
          return info === undefined
            ? Effect.succeedNone
            : Effect.map(archivedOf(store, key), (archived) => Option.some(archived === undefined ? info : { ...info, archived }))
        })
      ),
      Effect.catchReason("SessionStoreError", "SessionNotFound", () => Effect.succeedNone)
    )

  const subagentMessages = (sessionId: string, agentId: string, options: Sessions.MessagesOptions = {}) =>
    Stream.unwrap(Effect.flatMap(keyOf(sessionId, options), (key) =>
      Effect.map(subagentsOf(store, key), (agents) => {
        const agent = agents.find((a) => a.agentId === agentId)
        return agent === undefined
          ? Stream.empty
          : Chain.conversation(records(store, { ...key, subpath: agent.subpath }), true, options)
      })))

  // The session is materialized into a temporary config directory, forked there, and the fork appended.
  const forkSession = (sessionId: string, options: Sessions.ForkOptions = {}) =>
    Effect.gen(function*() {
      const key = yield* keyOf(sessionId, options)
      const configDir = yield* fs.makeTempDirectoryScoped({ prefix: "claude-fork-" }).pipe(
        Effect.mapError(Keys.operationFailed("fork", key))
      )
      yield* SessionTransfer.materialize(store, key, { configDir, projectKey: key.projectKey })
      const files = yield* SessionFiles.make({ configDir })
      const fork = yield* files.forkSession(key.sessionId, { ...options, dir: undefined, projectKey: key.projectKey })
      yield* SessionTransfer.importSession(store, { configDir, projectKey: key.projectKey, sessionId: fork.sessionId }, {
        includeSubagents: false
      })
      return fork
    }).pipe(Effect.scoped, Effect.provide(context))

  // A title or tag entry as the CLI writes one; a blank text is refused before anything is appended.
  const appendMarker = (
    sessionId: string,
    lookup: Sessions.LookupOptions,
    entry: { readonly type: "custom-title"; readonly customTitle: string } | { readonly type: "tag"; readonly tag: string },
    blank: "title" | "tag" | undefined
  ): Effect.Effect<void, Failure> =>
    blank !== undefined
      ? Effect.fail(Blank.blank(lookup.projectKey === undefined ? sessionId : Keys.keyString({ projectKey: lookup.projectKey, sessionId }), blank))
      : Effect.flatMap(keyOf(sessionId, lookup), (key) =>
        store.append(key, [{ ...entry, sessionId: key.sessionId, uuid: crypto.randomUUID(), timestamp: new Date().toISOString() }]))

  // An archive mark as the SDK writes one, under the store's archive subpath.
  const setArchived = (archived: boolean) => (sessionId: string, options: Sessions.LookupOptions = {}) =>
    Effect.flatMap(keyOf(sessionId, options), (key) =>
      store.append({ ...key, subpath: Keys.archiveSubpath }, [{
        type: Keys.archiveSubpath,
        archived,
        at: new Date().toISOString(),
        by: "sdk"
      }]))

  // `selectSessions` is always there: queries (`view --store`) use it without a fallback.
  const shape: Sessions.Shape & Required<Pick<Sessions.Shape, "selectSessions">> = {
    listSessions,
    selectSessions,
    getSessionInfo,
    entries: (sessionId, options = {}) => Stream.unwrap(Effect.map(keyOf(sessionId, options), (key) => records(store, key))),
    // The session is loaded twice (once to find the chain, once to read it); one the store does not hold under
    // a key given has none.
    messages: ((sessionId: string, options: Sessions.MessagesOptions = {}) =>
      Stream.unwrap(Effect.map(keyOf(sessionId, options), (key) => Chain.conversation(records(store, key), false, options)))) as Sessions.Shape["messages"],
    listSubagents: (sessionId, options = {}) => Effect.flatMap(keyOf(sessionId, options), (key) => subagentsOf(store, key)),
    subagentMessages: subagentMessages as Sessions.Shape["subagentMessages"],
    forkSession,
    deleteSession: (sessionId, options = {}) => Effect.flatMap(keyOf(sessionId, options), store.delete),
    renameSession: (sessionId, title, options = {}) =>
      appendMarker(sessionId, options, { type: "custom-title", customTitle: title.trim() }, title.trim() === "" ? "title" : undefined),
    tagSession: (sessionId, tag, options = {}) =>
      appendMarker(sessionId, options, { type: "tag", tag: tag?.trim() ?? "" }, tag !== null && tag.trim() === "" ? "tag" : undefined),
    archiveSession: setArchived(true),
    unarchiveSession: setArchived(false)
  }
  return shape
})

/**
 * {@link Sessions.Sessions} over the {@link SessionStore.SessionStore} in context (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Sessions.Sessions, never, SessionStore.SessionStore | FileSystem.FileSystem | Path.Path> = Layer.effect(
  Sessions.Sessions,
  Effect.gen(function*() {
    return yield* make(yield* SessionStore.SessionStore)
  })
)
