/**
 * The SDK's session functions given a `sessionStore`, over a {@link SessionStore.Shape}, each taking a session's
 * key or its id alone (found in the project that holds it): a session's info,
 * its messages and its subagents' in conversation order, read from the store instead of a config directory;
 * a fork into the store; a title and a tag appended as the CLI writes them; archive marks. Listing is
 * `SessionStore.listSessionInfo`, deleting the store's `delete`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Transcript from "../transcript/Transcript.ts"
import type * as TranscriptDecode from "../transcript/Decode.ts"
import * as Chain from "./internal/chain.ts"
import * as Info from "./internal/info.ts"
import * as Subagent from "./internal/subagent.ts"
import * as SessionFiles from "./SessionFiles.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * A message of a session (see `SessionFiles.SessionMessage`).
 *
 * @since 0.1.0
 * @category models
 */
export type SessionMessage = SessionFiles.SessionMessage

/**
 * A session in a store.
 *
 * @since 0.1.0
 * @category models
 */
export type Key = Omit<SessionStore.SessionKey, "subpath">

/**
 * A session as the functions here take it: its key, or its id alone, found in whichever project of the
 * store holds it (see `SessionStore.locate`: `SessionNotFound`, `AmbiguousSession`).
 *
 * @since 0.1.0
 * @category models
 */
export type Lookup = Key | string

const keyOf = (store: SessionStore.Shape, session: Lookup): Effect.Effect<Key, SessionStore.SessionStoreError> =>
  typeof session === "string" ? SessionStore.locate(store, session) : Effect.succeed(session)

/**
 * A session's info as `listSessionInfo` gives it, from its summary, with whether it is archived (see
 * {@link archiveSession}); `None` for a session the store does not hold or one with nothing to show.
 *
 * @since 0.1.0
 * @category reading
 */
export const getSessionInfo = (
  store: SessionStore.Shape,
  session: Lookup
): Effect.Effect<Option.Option<SessionFiles.SessionInfo>, SessionStore.SessionStoreError> =>
  keyOf(store, session).pipe(
    Effect.flatMap((key) =>
      Effect.flatMap(SessionStore.listSessionInfo(store, key.projectKey), (infos) => {
        const info = infos.find((i) => i.sessionId === key.sessionId)
        return info === undefined
          ? Effect.succeedNone
          : Effect.map(archivedOf(store, key), (archived) => Option.some(archived === undefined ? info : { ...info, archived }))
      })
    ),
    Effect.catchReason("SessionStoreError", "SessionNotFound", () => Effect.succeedNone)
  )

// Whether a stored session is archived: its last mark, unless a prompt was sent after it (the transcript is
// read only for a session archived).
const archivedOf = (store: SessionStore.Shape, key: Key) =>
  Effect.flatMap(store.load({ ...key, subpath: SessionStore.archiveSubpath }), (marks) => {
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

// A stored transcript as decoded lines (line = position in the store); an entry the transcript schemas
// reject fails the read, as a bad line of a file does.
const records = (store: SessionStore.Shape, key: SessionStore.SessionKey) =>
  Stream.unwrap(Effect.map(store.load(key), (loaded) =>
    Stream.fromIterable(Option.getOrElse(loaded, (): ReadonlyArray<SessionStore.Entry> => [])).pipe(
      Stream.zipWithIndex,
      Stream.mapEffect(([entry, index]): Effect.Effect<TranscriptDecode.DecodedEntry, SessionStore.SessionStoreError> => {
        const decoded = Transcript.decodeEntry(entry)
        return Result.isSuccess(decoded)
          ? Effect.succeed({ line: index + 1, raw: JSON.stringify(entry), entry: decoded.success })
          : Effect.fail(new SessionStore.SessionStoreError({
            reason: new SessionStore.InvalidEntry({
              operation: "load",
              key: SessionStore.keyString(key),
              detail: `entry ${index + 1} is not a transcript entry: ${decoded.failure.message}`,
              cause: decoded.failure
            })
          }))
      })
    )))

/**
 * A stored session's messages in conversation order (following `parentUuid` from the last message,
 * sidechains apart, parallel tool calls' siblings put back), as `SessionFiles.messages` reads a file. The session is loaded twice (once to find the
 * chain, once to read it); a session the store does not hold under a key given has none.
 *
 * @since 0.1.0
 * @category reading
 */
export const messages = (
  store: SessionStore.Shape,
  session: Lookup,
  options: SessionFiles.MessagesOptions = {}
): Stream.Stream<SessionMessage, SessionStore.SessionStoreError> =>
  Stream.unwrap(Effect.map(keyOf(store, session), (key) => Chain.conversation(records(store, key), false, options)))

/**
 * A stored subagent transcript: its agent id, subpath (`subagents/agent-<id>`) and what its last
 * `agent_metadata` entry (its `.meta.json`) says, as `SessionFiles.listSubagents` gives a file's.
 *
 * @since 0.1.0
 * @category models
 */
export type StoredSubagent = SessionFiles.SubagentInfo

/**
 * The subagent transcripts stored under a session, by subpath, with their metadata (each transcript is
 * loaded to find it).
 *
 * @since 0.1.0
 * @category reading
 */
export const listSubagents = (
  store: SessionStore.Shape,
  session: Lookup
): Effect.Effect<ReadonlyArray<StoredSubagent>, SessionStore.SessionStoreError> =>
  Effect.flatMap(keyOf(store, session), (key) => subagentsOf(store, key))

const subagentsOf = (store: SessionStore.Shape, key: Key) =>
  Effect.flatMap(store.listSubkeys(key), (subpaths) =>
    Effect.forEach(
      subpaths.flatMap((subpath) => {
        const match = /(?:^|\/)agent-([^/]+)$/.exec(subpath)
        return match === null ? [] : [{ agentId: match[1]!, subpath }]
      }),
      ({ agentId, subpath }) =>
        Effect.map(store.load({ ...key, subpath }), (loaded) => {
          const entries = Option.getOrElse(loaded, (): ReadonlyArray<SessionStore.Entry> => [])
          const meta = entries.findLast((entry) => entry.type === "agent_metadata")
          return Subagent.info(agentId, subpath, meta ?? {})
        })
    ))

/**
 * A stored subagent's messages in conversation order; none for an agent the store does not hold.
 *
 * @since 0.1.0
 * @category reading
 */
export const subagentMessages = (
  store: SessionStore.Shape,
  session: Lookup,
  agentId: string,
  options: SessionFiles.MessagesOptions = {}
): Stream.Stream<SessionMessage, SessionStore.SessionStoreError> =>
  Stream.unwrap(Effect.flatMap(keyOf(store, session), (key) =>
    Effect.map(subagentsOf(store, key), (agents) => {
      const agent = agents.find((a) => a.agentId === agentId)
      return agent === undefined
        ? Stream.empty
        : Chain.conversation(records(store, { ...key, subpath: agent.subpath }), true, options)
    })))

/**
 * Forks a stored session into a new session of the same project in the store, as `SessionFiles.forkSession`
 * forks a file (fresh uuids, the conversation up to `upToMessageId`, a title): the session is materialized
 * into a temporary config directory, forked there, and the fork appended to the store. A session the store
 * does not hold is `SessionNotFound`.
 *
 * @since 0.1.0
 * @category forking
 */
export const forkSession = Effect.fnUntraced(function*(
  store: SessionStore.Shape,
  session: Lookup,
  options: Omit<SessionFiles.ForkOptions, "dir"> = {}
) {
  const key = yield* keyOf(store, session)
  const fs = yield* FileSystem.FileSystem
  const configDir = yield* fs.makeTempDirectoryScoped({ prefix: "claude-fork-" }).pipe(
    Effect.mapError(SessionStore.operationFailed("fork", key))
  )
  yield* SessionStore.materialize(store, key, { configDir, projectKey: key.projectKey })
  const files = yield* SessionFiles.make({ configDir })
  const fork = yield* files.forkSession(key.sessionId, options)
  yield* SessionStore.importSession(store, { configDir, projectKey: key.projectKey, sessionId: fork.sessionId }, {
    includeSubagents: false
  })
  return fork
}, Effect.scoped)

// A title or tag entry as the CLI writes one; a blank text is refused before anything is appended.
const appendMarker = (
  store: SessionStore.Shape,
  session: Lookup,
  entry: { readonly type: "custom-title"; readonly customTitle: string } | { readonly type: "tag"; readonly tag: string },
  blank: string | undefined
): Effect.Effect<void, SessionStore.SessionStoreError> =>
  blank !== undefined
    ? Effect.fail(new SessionStore.SessionStoreError({
      reason: new SessionStore.InvalidEntry({
        operation: "append",
        key: typeof session === "string" ? session : SessionStore.keyString(session),
        detail: blank
      })
    }))
    : Effect.flatMap(keyOf(store, session), (key) =>
      store.append(key, [{ ...entry, sessionId: key.sessionId, uuid: crypto.randomUUID(), timestamp: new Date().toISOString() }]))

/**
 * Gives a stored session a title (a `custom-title` entry), which its listing shows from then on.
 *
 * @since 0.1.0
 * @category mutations
 */
export const renameSession = (store: SessionStore.Shape, session: Lookup, title: string): Effect.Effect<void, SessionStore.SessionStoreError> =>
  appendMarker(store, session, { type: "custom-title", customTitle: title.trim() }, title.trim() === "" ? "a session title cannot be blank" : undefined)

/**
 * Tags a stored session (a `tag` entry); `null` clears its tag.
 *
 * @since 0.1.0
 * @category mutations
 */
export const tagSession = (store: SessionStore.Shape, session: Lookup, tag: string | null): Effect.Effect<void, SessionStore.SessionStoreError> =>
  appendMarker(
    store,
    session,
    { type: "tag", tag: tag?.trim() ?? "" },
    tag !== null && tag.trim() === "" ? "a tag cannot be blank (null clears the tag)" : undefined
  )

// An archive mark as the SDK writes one, under the store's archive subpath.
const setArchived = (archived: boolean) => (store: SessionStore.Shape, session: Lookup): Effect.Effect<void, SessionStore.SessionStoreError> =>
  Effect.flatMap(keyOf(store, session), (key) =>
    store.append({ ...key, subpath: SessionStore.archiveSubpath }, [{
      type: SessionStore.archiveSubpath,
      archived,
      at: new Date().toISOString(),
      by: "sdk"
    }]))

/**
 * Archives a stored session: a mark under `SessionStore.archiveSubpath` (the SDK refuses a store here, since
 * it keeps the mark beside the local transcript; this store keeps it as a transcript of its own, which a
 * resume writes back beside the local transcript as the SDK's `archived.json`). {@link getSessionInfo}
 * shows it archived until a prompt is sent in it.
 *
 * @since 0.1.0
 * @category mutations
 */
export const archiveSession: (store: SessionStore.Shape, session: Lookup) => Effect.Effect<void, SessionStore.SessionStoreError> =
  setArchived(true)

/**
 * Unarchives a stored session: {@link getSessionInfo} shows it with `archived: false`.
 *
 * @since 0.1.0
 * @category mutations
 */
export const unarchiveSession: (store: SessionStore.Shape, session: Lookup) => Effect.Effect<void, SessionStore.SessionStoreError> =
  setArchived(false)
