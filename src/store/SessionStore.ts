/**
 * The `SessionStore` contract, as the official SDK's: where session transcripts are kept besides the CLI's config
 * directory. `append` (idempotent by entry `uuid`), `load`, `listSessions`, `listSessionSummaries`, `listSubkeys`,
 * `delete`, and the optional `findProjects`. Entries are transcript lines as JSON objects, kept as written. Each
 * store keeps a summary per session (what listing it shows), folded from the entries each append adds, so listing
 * reads one summary per session and never the entries. Here are the service, its keys, entries and summaries, the
 * one error of the store's entry point (`SessionStoreError`, also that of `Sessions`), and the store options of
 * queries and sessions; the stores are `MemorySessionStore`, `DirectorySessionStore` and `SqlSessionStore`.
 * The core (`ClaudeCliError`, `QueryOptions`) names this module and nothing of the stores.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { causeText } from "../internal/causeText.ts"
import * as Plural from "../internal/plural.ts"
import * as Transcript from "../transcript/Transcript.ts"
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
 * What a store was asked to do when it failed.
 *
 * @since 0.1.0
 * @category errors
 */
export const Operation = Schema.Literals([
  "append",
  "load",
  "listSessions",
  "listSessionSummaries",
  "listSubkeys",
  "delete",
  "findProjects",
  "import",
  "fork",
  "materialize",
  "lease",
  // A write of the cluster's turn log, fenced by a conversation's lease (`TurnLog`).
  "turnLog"
])

/**
 * @since 0.1.0
 * @category errors
 */
export type Operation = typeof Operation.Type

/**
 * The store's storage failed (a file, a database): `cause` says why.
 *
 * @since 0.1.0
 * @category reasons
 */
export class OperationFailed extends Schema.TaggedError<OperationFailed>()("OperationFailed", {
  operation: Operation,
  /** The key, project key or file the operation was about. */
  key: Schema.String,
  cause: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}(${this.key}) failed: ${causeText(this.cause)}`
  }
}

/**
 * The store did not answer in time (`option` names the setting that bounds it); the call may still land.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  operation: Operation,
  key: Schema.String,
  timeoutMillis: Schema.Number,
  option: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}(${this.key}) gave no answer within ${this.timeoutMillis}ms (${this.option})`
  }
}

/**
 * A key's part is not a name a store can keep: empty, `.` or `..`, with a path separator (a `subpath` may
 * have `/` between names), or with a NUL; or, in a config directory, a session id that is not a UUID (it names
 * a file: anything else could point outside the projects directory).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidKey extends Schema.TaggedError<InvalidKey>()("InvalidKey", {
  operation: Operation,
  field: Schema.Literals(["projectKey", "sessionId", "subpath"]),
  value: Schema.String,
  detail: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}: invalid ${this.field} ${JSON.stringify(this.value)}: ${this.detail}`
  }
}

/**
 * An entry is not what it has to be: a stored entry the transcript schemas reject, a stored line that is not
 * a JSON object (`detail` names the file and the line), or a title or tag that is blank.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidEntry extends Schema.TaggedError<InvalidEntry>()("InvalidEntry", {
  operation: Operation,
  key: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}(${this.key}): ${this.detail}`
  }
}

/**
 * A resume found a local transcript and a stored one that each have entries the other lacks (`localOnly`
 * and `storedOnly` count them, by uuid): the local file was left as it was, and nothing was written. Moving
 * it aside resumes from the store.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TranscriptConflict extends Schema.TaggedError<TranscriptConflict>()("TranscriptConflict", {
  key: Schema.String,
  path: Schema.String,
  localOnly: Schema.Number,
  storedOnly: Schema.Number
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Cannot resume ${this.key} from the store: the local transcript ${this.path} has ${Plural.plural(this.localOnly, "entry", "entries")} ` +
      `the store lacks, and the store ${this.storedOnly} it lacks; move it aside to resume from the store`
  }
}

/**
 * A session (or a subagent of it, `agentId`) is not there. In a config directory, `searched` lists the project
 * directories looked in. In a store, `detail` says why: no project holds it, or the store cannot find sessions by
 * id (it has no `findProjects`); giving its project key finds it.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String,
  agentId: Schema.optional(Schema.String),
  /** The project directories looked in (a config directory). */
  searched: Schema.optional(Schema.Array(Schema.String)),
  /** Why the store does not hold it (a store). */
  detail: Schema.optional(Schema.String)
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const what = this.agentId === undefined ? `Session ${this.sessionId}` : `Subagent ${this.agentId} of session ${this.sessionId}`
    if (this.searched === undefined) return `${what} not found in the store: ${this.detail ?? "no project of the store holds it"}`
    const shown = this.searched.slice(0, 3).join(", ")
    const where = this.searched.length === 0
      ? "no project directory"
      : this.searched.length <= 3
      ? shown
      : `${this.searched.length} directories: ${shown}, …`
    return `${what} not found (looked in ${where})`
  }
}

/**
 * A session looked for by its id alone is in more than one project (`projectKeys`; in a config directory,
 * `directories` are theirs): give the project (`projectKey`, or the `dir` it ran in) of the one meant.
 *
 * @since 0.1.0
 * @category reasons
 */
export class AmbiguousSession extends Schema.TaggedError<AmbiguousSession>()("AmbiguousSession", {
  sessionId: Schema.String,
  projectKeys: Schema.Array(Schema.String),
  /** The project directories holding it (a config directory). */
  directories: Schema.optional(Schema.Array(Schema.String))
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.directories === undefined
      ? `Session ${this.sessionId} is in ${this.projectKeys.length} projects of the store (${this.projectKeys.join(", ")}): ` +
        `give the projectKey of the one meant`
      : `Session ${this.sessionId} is in ${this.directories.length} projects (${this.directories.join(", ")}): give the dir of the one meant`
  }
}

/**
 * A fork's `upToMessageId` is not a message of the session.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MessageNotFound extends Schema.TaggedError<MessageNotFound>()("MessageNotFound", {
  sessionId: Schema.String,
  uuid: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Message ${this.uuid} not found in session ${this.sessionId}`
  }
}

/**
 * A line of a transcript file could not be decoded (`error`, a `DecodeError`, names the line and what was wrong).
 *
 * @since 0.1.0
 * @category reasons
 */
export class BadTranscript extends Schema.TaggedError<BadTranscript>()("BadTranscript", {
  path: Schema.String,
  error: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.path}: ${this.error instanceof Error ? this.error.message : String(this.error)}`
  }
}

/**
 * The store could not be opened (a database file, its tables): `store` says which.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  store: Schema.String,
  cause: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `The session store ${this.store} cannot be opened: ${causeText(this.cause)}`
  }
}

/**
 * An append (or a write of the cluster's turn log: operation `turnLog`) carried a {@link Fence} whose lease
 * another holder has taken since (`current` is the token it is held with now, 0 for a lease never taken):
 * nothing was written. The writer lost the conversation (a runner paused past its shards' expiry, then woke)
 * and must end its CLI; the holder's chain stands.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Fenced extends Schema.TaggedError<Fenced>()("Fenced", {
  operation: Operation,
  key: Schema.String,
  lease: Schema.String,
  token: Schema.Number,
  current: Schema.Number
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `SessionStore.${this.operation}(${this.key}) refused: the lease ${JSON.stringify(this.lease)} is held with token ` +
      `${this.current} now, this writer has ${this.token} (it lost the lease); nothing was written`
  }
}

/**
 * Every reason a {@link SessionStoreError} can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([
  OperationFailed,
  Timeout,
  InvalidKey,
  InvalidEntry,
  TranscriptConflict,
  SessionNotFound,
  AmbiguousSession,
  MessageNotFound,
  BadTranscript,
  Unavailable,
  Fenced
])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * A store operation, or a `Sessions` operation (over a config directory or a store), failed; the `reason` says how. Recover by reason with
 * `Effect.catchReason("SessionStoreError", "Timeout", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>()("SessionStoreError", {
  reason: Reason
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

/**
 * A lease on a conversation (its name) and the fencing token its holder took it with: tokens of one lease
 * only grow, so the holder with the highest is the one allowed to write.
 *
 * @since 0.1.0
 * @category leases
 */
export interface Fence {
  readonly lease: string
  readonly token: number
}

/**
 * The leases of a store that fences its writers (see `Lease`): one holder of a lease at a time, enforced by
 * the store where it keeps the entries.
 *
 * @since 0.1.0
 * @category leases
 */
export interface Leases {
  /**
   * Takes the lease from whoever held it: its token is one above the last one given. Returns once no append
   * carrying an older token is under way, so none lands after.
   */
  readonly acquire: (lease: string) => Effect.Effect<Fence, SessionStoreError>
  /** The token the lease is held with now; 0 for a lease never taken. */
  readonly current: (lease: string) => Effect.Effect<number, SessionStoreError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /**
   * Appends entries in order; an entry whose `uuid` the key already holds is skipped. With a `fence` (on a
   * store with `leases`), nothing is written unless the fence's token is the lease's current one: `Fenced`.
   */
  readonly append: (key: SessionKey, entries: ReadonlyArray<Entry>, fence?: Fence | undefined) => Effect.Effect<void, SessionStoreError>
  /** Every entry of a key in append order; `None` for a key never written. */
  readonly load: (key: SessionKey) => Effect.Effect<Option.Option<ReadonlyArray<Entry>>, SessionStoreError>
  /** The sessions of a project with their last write time (ms since the epoch). */
  readonly listSessions: (
    projectKey: string
  ) => Effect.Effect<ReadonlyArray<{ readonly sessionId: string; readonly mtime: number }>, SessionStoreError>
  /** The summaries of a project's sessions, kept up to date by `append`: one read per session, no entry read. */
  readonly listSessionSummaries: (projectKey: string) => Effect.Effect<ReadonlyArray<SessionSummary>, SessionStoreError>
  /** The subpaths stored under a session (subagent transcripts). */
  readonly listSubkeys: (key: Omit<SessionKey, "subpath">) => Effect.Effect<ReadonlyArray<string>, SessionStoreError>
  /** Removes a session and everything under it. */
  readonly delete: (key: SessionKey) => Effect.Effect<void, SessionStoreError>
  /**
   * The project keys under which the store holds a main transcript of this session id, so that a session is
   * found by its id alone (as `Sessions` does). Not in the SDK's contract, so optional: a store without it
   * finds sessions by project key only.
   */
  readonly findProjects?: ((sessionId: string) => Effect.Effect<ReadonlyArray<string>, SessionStoreError>) | undefined
  /**
   * The store's leases, when it fences writers: not in the SDK's contract, so optional. A store without them
   * cannot refuse a stale writer (the directory store: no transaction spans a lease and a file).
   */
  readonly leases?: Leases | undefined
  /**
   * Every project key under which the store holds a main transcript, so that a query reads every project.
   * Not in the SDK's contract, so optional: over a store without it, a query reads one project.
   */
  readonly listProjects?: (() => Effect.Effect<ReadonlyArray<string>, SessionStoreError>) | undefined
  /**
   * The store's tool-call index, kept by `append`: not in the SDK's contract, so optional (a query over a
   * store without it reads every session).
   */
  readonly toolCalls?: ToolCallIndex | undefined
}

/**
 * What a row of a tool-call index (one per call of a main transcript) must satisfy: its tool's name
 * (`Tool`, a glob: `*` any run, `?` one character), its outcome (`Outcome`: `"error"` is an error or a refusal,
 * `"denied"` a refusal), a string of its input (`Input`: Bash's `command`, WebFetch's `url` as name globs, a
 * file tool's `path` as a path glob); `And` of none is any row, `Or` of none no row.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCallQuery =
  | { readonly _tag: "Tool"; readonly pattern: string }
  | { readonly _tag: "Outcome"; readonly outcome: "error" | "denied" }
  | { readonly _tag: "Input"; readonly on: "command" | "path" | "url"; readonly pattern: string }
  | { readonly _tag: "And"; readonly queries: ReadonlyArray<ToolCallQuery> }
  | { readonly _tag: "Or"; readonly queries: ReadonlyArray<ToolCallQuery> }

/**
 * A store's index of tool calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallIndex {
  /**
   * The sessions (of `projectKey`, else of every project) with a call whose row satisfies `query`: every
   * session that has one, and possibly others (a glob the database cannot match exactly is widened); the
   * caller reads them to decide.
   */
  readonly sessions: (
    query: ToolCallQuery,
    projectKey?: string | undefined
  ) => Effect.Effect<ReadonlyArray<Omit<SessionKey, "subpath">>, SessionStoreError>
}

/**
 * What listing a session needs of its entries, as a store keeps it, folded from them by every append (see
 * {@link foldSummary}): the first prompt, cwd, creation time and sidechain flag freeze at their first
 * appearance; titles, tag, last prompt, summary and git branch follow the latest. JSON-safe (fields absent,
 * never `undefined`), so a store keeps it as it is. `bytes` is the size of the entries as JSON lines.
 *
 * @since 0.1.0
 * @category summaries
 */
export type SummaryData = Info.Summary & { readonly bytes: number }

/**
 * A session's summary with `entries` (those an append added to its main transcript, never a replayed one)
 * folded in; `undefined` for a session without one yet. Pure: a store calls it inside `append`, serialized
 * per session. Entries that are not transcript entries count in `bytes` only. A store of your own keeps what
 * this gives (`StoreConformance` checks it).
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

/**
 * A session as listing it shows it (`Sessions.listSessions`, `getSessionInfo`), from a transcript file or from a
 * store's summary.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionInfo {
  readonly sessionId: string
  /** The project directory's key (`projects/<projectKey>/<sessionId>.jsonl`). */
  readonly projectKey: string
  /** Display title: the custom title, the model's title, the last prompt, the summary, or the first prompt. */
  readonly summary: string
  /**
   * Last modified time in milliseconds since the epoch: the file's mtime in whole milliseconds as Effect's
   * `FileSystem` gives it (cut, not rounded; the SDK rounds Node's sub-millisecond mtime, so its value can be
   * 1 ms later), or the store's time of the last append.
   */
  readonly lastModified: number
  /** Size of the transcript in bytes (in a store: of its entries as JSON lines). */
  readonly fileSize: number
  readonly customTitle?: string | undefined
  readonly firstPrompt?: string | undefined
  readonly gitBranch?: string | undefined
  readonly cwd?: string | undefined
  readonly tag?: string | undefined
  /** The first entry's timestamp, in milliseconds since the epoch. */
  readonly createdAt?: number | undefined
  /**
   * Whether the session is archived: `true` once archived, `false` once unarchived or when a prompt was sent
   * in it after it was archived; absent when it never was (and for a store's sessions in listings).
   */
  readonly archived?: boolean | undefined
}

/**
 * A session's summary in a store. `mtime` is the store's time of the append that last changed it, the same
 * clock (and, after that append, the same value) as `listSessions`' `mtime`.
 *
 * @since 0.1.0
 * @category summaries
 */
export interface SessionSummary {
  readonly sessionId: string
  readonly mtime: number
  readonly data: SummaryData
}

/**
 * @since 0.1.0
 * @category services
 */
export class SessionStore extends Context.Service<SessionStore, Shape>()("effect-claude-code/SessionStore") {}

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
  /**
   * How long each append may take (default 60 seconds, as the SDK); one that has not answered by then is not
   * retried and becomes a `mirror_error`. Also how long the end of a run (or a session's close) waits for the
   * appends still to do, all together: those it cuts off are `mirror_error`s too.
   */
  readonly appendTimeout?: Duration.Input | undefined
  /**
   * What a resume does with a local transcript that has entries the store lacks while lacking some it holds:
   * `"fail"` (default) with `TranscriptConflict`; `"store"`: the stored chain is the conversation, and the local
   * file is moved aside (`<file>.aside-<time>`). A lease's holder resumes so: what the store lacks there was
   * written by a holder the store fenced out.
   */
  readonly onConflict?: "fail" | "store" | undefined
}
