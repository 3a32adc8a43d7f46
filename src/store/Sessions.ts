/**
 * The SDK's session functions (`listSessions`, `getSessionInfo`, `getSessionMessages`, `listSubagents`,
 * `getSubagentMessages`, `forkSession`, `deleteSession`, `renameSession`, `tagSession`, `archiveSession`,
 * `unarchiveSession`) as one service, over the CLI's config directory (`SessionFiles.layer`) or over a
 * `SessionStore` (`StoredSessions.layer`). Each operation finds a session by its id alone, unless told which
 * project holds it (`dir`, the directory it ran in, or its `projectKey`); messages stream, so a transcript of
 * any size is read in memory bounded by its ids and its longest line. Every operation fails with
 * `SessionStore.SessionStoreError`, whose `reason` says what went wrong. {@link select} runs a filter of
 * effect-claude-code/filter across every session.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import type * as Ast from "../filter/Ast.ts"
import * as Item from "../filter/Item.ts"
import * as TranscriptMessages from "../transcript/Messages.ts"
import type * as Transcript from "../transcript/Transcript.ts"
import type { DecodeError } from "../stream/DecodeError.ts"
import type * as Ndjson from "../stream/Ndjson.ts"
import type * as TranscriptDecode from "../transcript/Decode.ts"
import type * as SessionStore from "./SessionStore.ts"

/**
 * Where to look: the project of `dir` (the directory a session ran in) or the project `projectKey` names (its
 * sessions only; `projectKey` wins when both are given); without either, every project, where a session id
 * found in more than one is `AmbiguousSession`. Over a store, every project is those its `findProjects` finds
 * (a store without it finds a session by its project only: `SessionNotFound`).
 *
 * @since 0.1.0
 * @category models
 */
export interface LookupOptions {
  readonly dir?: string | undefined
  readonly projectKey?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends LookupOptions {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface MessagesOptions extends LookupOptions {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  /** Also the system entries on the conversation (compaction boundaries, API errors, notes). */
  readonly includeSystemMessages?: boolean | undefined
  /**
   * What a bad line of a transcript file does (a torn last line is what a crash leaves). `"fail"` (default):
   * the messages written before it come first, then the read fails with `BadTranscript`; `"emit"`: it is
   * left out of the conversation and passed on in-band as a {@link DecodeError}, and reading goes on. A store
   * holds JSON objects, not lines: a stored entry the transcript schemas reject fails with `InvalidEntry`.
   */
  readonly onBadLine?: Ndjson.OnBadLine | undefined
}

/**
 * A message of a session: a user or assistant entry, or a system entry when asked for.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionMessage = Transcript.MessageEntry | Transcript.SystemEntry

/**
 * A subagent transcript of a session, with what its `.meta.json` (in a store: its last `agent_metadata` entry)
 * says about it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SubagentInfo {
  readonly agentId: string
  /** The transcript's path relative to the session's directory (`subagents/agent-<id>.jsonl`; in a store, its subpath). */
  readonly subpath: string
  readonly agentType?: string | undefined
  readonly description?: string | undefined
  /** The Task (Agent) tool call that started it. */
  readonly toolUseId?: string | undefined
  /** 1 for a subagent of the main agent, 2 for one of a subagent, ... */
  readonly spawnDepth?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ForkOptions extends LookupOptions {
  /** The last message to copy (its `uuid`); every message when absent. */
  readonly upToMessageId?: string | undefined
  /** The fork's title; the source's title followed by " (fork)" when absent. */
  readonly title?: string | undefined
  /**
   * What a bad line of the source does (a torn last line is what a crash leaves). `"skip"` (default): it is
   * left out of the fork, as the CLI leaves it out of a resume, and its line number is in `skippedLines`;
   * `"fail"`: the fork fails with `BadTranscript`.
   */
  readonly onBadLine?: "skip" | "fail" | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /**
   * Sessions, most recently modified first (sidechain transcripts and sessions with nothing to show left out).
   * Over a store, those of one project (of `dir` or `projectKey`, else of the current directory), from the
   * store's summaries, no entry read.
   */
  readonly listSessions: (options?: ListOptions) => Effect.Effect<ReadonlyArray<SessionStore.SessionInfo>, SessionStore.SessionStoreError>
  /** A session's info, with whether it is archived; `None` for a session not there or with nothing to show. */
  readonly getSessionInfo: (
    sessionId: string,
    options?: LookupOptions
  ) => Effect.Effect<Option.Option<SessionStore.SessionInfo>, SessionStore.SessionStoreError>
  /** Every entry of a session's transcript in order, with its line as written (in a store: its position and JSON). */
  readonly entries: (
    sessionId: string,
    options?: LookupOptions
  ) => Stream.Stream<TranscriptDecode.DecodedEntry, SessionStore.SessionStoreError>
  /**
   * A session's messages in conversation order, as the SDK's `getSessionMessages` gives them and the CLI
   * resumes them: following `parentUuid` from the last message (so from the last compaction's summary on,
   * with the messages it kept), with the other calls of parallel tool calls and their results put back after
   * their message, and a prompt queued mid-turn as a user message where the model read it.
   */
  readonly messages: {
    (sessionId: string, options: MessagesOptions & { readonly onBadLine: "emit" }): Stream.Stream<
      SessionMessage | DecodeError,
      SessionStore.SessionStoreError
    >
    (sessionId: string, options?: MessagesOptions): Stream.Stream<SessionMessage, SessionStore.SessionStoreError>
  }
  readonly listSubagents: (
    sessionId: string,
    options?: LookupOptions
  ) => Effect.Effect<ReadonlyArray<SubagentInfo>, SessionStore.SessionStoreError>
  /** A subagent's messages in conversation order. */
  readonly subagentMessages: {
    (sessionId: string, agentId: string, options: MessagesOptions & { readonly onBadLine: "emit" }): Stream.Stream<
      SessionMessage | DecodeError,
      SessionStore.SessionStoreError
    >
    (sessionId: string, agentId: string, options?: MessagesOptions): Stream.Stream<
      SessionMessage,
      SessionStore.SessionStoreError
    >
  }
  /**
   * Copies a session's conversation into a new session (fresh uuids, same project) the CLI can resume; the
   * source's bad lines left out are `skippedLines` (1-based).
   */
  readonly forkSession: (
    sessionId: string,
    options?: ForkOptions
  ) => Effect.Effect<
    { readonly sessionId: string; readonly skippedLines: ReadonlyArray<number> },
    SessionStore.SessionStoreError
  >
  /** Removes a session's transcript and everything under it (subagents). */
  readonly deleteSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionStore.SessionStoreError>
  /**
   * Gives a session a title without a live session, as the SDK's `renameSession`: a `custom-title` line
   * appended to its transcript, which listings and the CLI read as its title from then on. A blank title is
   * `InvalidEntry`.
   */
  readonly renameSession: (
    sessionId: string,
    title: string,
    options?: LookupOptions
  ) => Effect.Effect<void, SessionStore.SessionStoreError>
  /** Tags a session without a live session, as the SDK's `tagSession` (a `tag` line); `null` clears its tag. */
  readonly tagSession: (
    sessionId: string,
    tag: string | null,
    options?: LookupOptions
  ) => Effect.Effect<void, SessionStore.SessionStoreError>
  /**
   * Archives a session, as the SDK's `archiveSession`: a mark beside its transcript
   * (`<session id>/archived.json`; in a store, which the SDK refuses, a transcript of its own that a resume
   * writes back as that file); it stays listed, with `archived: true`, until a prompt is sent in it. The
   * transcript is not changed.
   */
  readonly archiveSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionStore.SessionStoreError>
  /** Unarchives a session: listed with `archived: false`. */
  readonly unarchiveSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionStore.SessionStoreError>
  /**
   * The sessions {@link select} reads for a filter, in listing order (most recently modified first): those
   * `listSessions` lists when absent. Over a store: without a project, every project's (when the store has
   * `listProjects`), and, with the store's tool-call index, only those that can hold what the filter selects.
   */
  readonly selectSessions?: (
    filter: Ast.Ast,
    options: SelectOptions
  ) => Effect.Effect<ReadonlyArray<SessionStore.SessionInfo>, SessionStore.SessionStoreError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SelectOptions extends LookupOptions {
  /**
   * Whether a store's tool-call index narrows the sessions read (default `true`); `false` reads every
   * session, the reference the index must equal.
   */
  readonly index?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category services
 */
export class Sessions extends Context.Service<Sessions, Shape>()("effect-claude-code/Sessions") {}

/**
 * An item a query over stored sessions selected, with the session it came from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selected<A extends Item.Item = Item.Item> {
  readonly sessionId: string
  readonly projectKey: string
  readonly item: A
}

/**
 * What a filter (`Filter.Filter<A>` of effect-claude-code/filter) selects across every session: those of the
 * project of `dir` or `projectKey`, else of every project (over a store without `listProjects`, the current
 * directory's). Each session's messages in conversation order, as {@link Shape.messages}
 * reads them, through `Item.select(filter)`, so that a filter whose atoms need a call's result (`error`,
 * `denied`) decides within its session. Sessions come in listing order (most recently modified first).
 * Over a store with a tool-call index (SQL, memory), a filter that selects tool calls only
 * (`tool:Bash & error`, `path:src/**`) reads only the sessions the index finds calls of: the same items.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Filter } from "effect-claude-code/filter"
 * import { Sessions } from "effect-claude-code/store"
 * const failedBash = Sessions.select(Filter.and(Filter.toolUse("Bash"), Filter.error), { projectKey: "-work-app" })
 * const calls = Stream.runCollect(failedBash) // Effect<Array<Selected<...>>, SessionStoreError, Sessions>
 * ```
 *
 * @since 0.1.0
 * @category queries
 */
export const select = <A extends Item.Item>(
  filter: Item.Selector<A>,
  options: SelectOptions = {}
): Stream.Stream<Selected<A>, SessionStore.SessionStoreError, Sessions> =>
  Stream.unwrap(Effect.map(Effect.service(Sessions), (sessions) =>
    Stream.fromIterableEffect(sessions.selectSessions?.(filter.ast, options) ?? sessions.listSessions(options)).pipe(
      Stream.flatMap(({ projectKey, sessionId }) =>
        sessions.messages(sessionId, { projectKey }).pipe(
          Stream.map((entry) => TranscriptMessages.toMessage(entry)),
          Stream.filter(Predicate.isNotUndefined),
          Item.select(filter),
          Stream.map((item): Selected<A> => ({ sessionId, projectKey, item }))
        )
      )
    )))
