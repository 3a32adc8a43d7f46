/**
 * The SDK's session functions given a `sessionStore`, over a {@link SessionStore.Shape}: a session's info,
 * its messages and its subagents' in conversation order, read from the store instead of a config directory,
 * and a fork into the store. Listing is `SessionStore.listSessionInfo`, deleting the store's `delete`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Transcript from "../schema/Transcript.ts"
import type * as TranscriptDecode from "../transcript/Decode.ts"
import * as Chain from "./internal/chain.ts"
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
 * A session's info as `listSessionInfo` gives it, from its summary; `None` for a session the store does not
 * hold or one with nothing to show.
 *
 * @since 0.1.0
 * @category reading
 */
export const getSessionInfo = (
  store: SessionStore.Shape,
  key: Key
): Effect.Effect<Option.Option<SessionFiles.SessionInfo>, SessionStore.SessionStoreError> =>
  Effect.map(SessionStore.listSessionInfo(store, key.projectKey), (infos) =>
    Option.fromUndefinedOr(infos.find((info) => info.sessionId === key.sessionId)))

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
          : Effect.fail(new SessionStore.SessionStoreError({ operation: "load", key: SessionStore.keyString(key), cause: decoded.failure }))
      })
    )))

/**
 * A stored session's messages in conversation order (following `parentUuid` from the last message,
 * sidechains apart), as `SessionFiles.messages` reads a file. The session is loaded twice (once to find the
 * chain, once to read it); a session the store does not hold has none.
 *
 * @since 0.1.0
 * @category reading
 */
export const messages = (
  store: SessionStore.Shape,
  key: Key,
  options: SessionFiles.MessagesOptions = {}
): Stream.Stream<SessionMessage, SessionStore.SessionStoreError> =>
  Chain.conversation(records(store, key), false, options)

/**
 * A stored subagent transcript: its agent id and subpath (`subagents/agent-<id>`).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredSubagent {
  readonly agentId: string
  readonly subpath: string
}

/**
 * The subagent transcripts stored under a session, by subpath.
 *
 * @since 0.1.0
 * @category reading
 */
export const listSubagents = (
  store: SessionStore.Shape,
  key: Key
): Effect.Effect<ReadonlyArray<StoredSubagent>, SessionStore.SessionStoreError> =>
  Effect.map(store.listSubkeys(key), (subpaths) =>
    subpaths.flatMap((subpath) => {
      const match = /(?:^|\/)agent-([^/]+)$/.exec(subpath)
      return match === null ? [] : [{ agentId: match[1]!, subpath }]
    }))

/**
 * A stored subagent's messages in conversation order; none for an agent the store does not hold.
 *
 * @since 0.1.0
 * @category reading
 */
export const subagentMessages = (
  store: SessionStore.Shape,
  key: Key,
  agentId: string,
  options: SessionFiles.MessagesOptions = {}
): Stream.Stream<SessionMessage, SessionStore.SessionStoreError> =>
  Stream.unwrap(Effect.map(listSubagents(store, key), (agents) => {
    const agent = agents.find((a) => a.agentId === agentId)
    return agent === undefined
      ? Stream.empty
      : Chain.conversation(records(store, { ...key, subpath: agent.subpath }), true, options)
  }))

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
  key: Key,
  options: Omit<SessionFiles.ForkOptions, "dir"> = {}
) {
  const fs = yield* FileSystem.FileSystem
  const configDir = yield* fs.makeTempDirectoryScoped({ prefix: "claude-fork-" }).pipe(
    Effect.mapError((cause) => new SessionStore.SessionStoreError({ operation: "fork", key: SessionStore.keyString(key), cause }))
  )
  yield* SessionStore.materialize(store, key, { configDir, projectKey: key.projectKey })
  const files = yield* SessionFiles.make({ configDir })
  const fork = yield* files.forkSession(key.sessionId, options)
  yield* SessionStore.importSession(store, { configDir, projectKey: key.projectKey, sessionId: fork.sessionId }, {
    includeSubagents: false
  })
  return fork
}, Effect.scoped)
