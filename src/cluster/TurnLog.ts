/**
 * What an agent session entity remembers between activations and runners: the CLI session id of each entity
 * (to resume its conversation), the settings its RPCs changed, and the outcome of each turn by id, so that a re-delivered `Turn` is answered
 * from here instead of being sent to the model again. The conversation itself stays with the CLI (its
 * transcript) or a session store; this log only keeps what makes delivery idempotent.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Crypto from "node:crypto"
import * as PermissionModes from "../internal/permissionMode.ts"
import * as Message from "../schema/Message.ts"
import * as Fencing from "../store/internal/fencing.ts"
import * as SessionStore from "../store/SessionStore.ts"

/**
 * What `begin` found for a turn id: a new turn (`attempt` 1), one that was started before and never finished
 * (a re-delivery: `attempt` counts the starts, this one included; `interrupted`, when they kept any with
 * `progress`, the messages with the tool calls and results of the attempts before; `promptId`, when one was
 * kept with `sent`, the uuid of the prompt the attempt before sent), one whose messages are known, one that was
 * begun with another prompt (`Conflict`: nothing is counted), or one started as often as `begin`'s `maxAttempts`
 * allows (`Exhausted`: `attempts`, the starts it had; this refusal is not counted).
 *
 * @since 0.1.0
 * @category models
 */
export type Begin =
  | {
    readonly _tag: "Start"
    readonly attempt: number
    readonly interrupted?: ReadonlyArray<Message.Message>
    readonly promptId?: string
  }
  | { readonly _tag: "Done"; readonly messages: ReadonlyArray<Message.Message> }
  | { readonly _tag: "Conflict" }
  | { readonly _tag: "Exhausted"; readonly attempts: number }

/**
 * The settings an entity's RPCs changed (`SetModel`, `SetPermissionMode`), kept so that the entity's next
 * activation, on whichever runner, starts its CLI with them. A setting never changed is absent (the entity
 * type's options apply); `model: null` is the default model, asked for.
 *
 * @since 0.1.0
 * @category models
 */
export const Settings = Schema.Struct({
  model: Schema.optionalKey(Schema.NullOr(Schema.String)),
  permissionMode: Schema.optionalKey(PermissionModes.PermissionMode)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Settings = typeof Settings.Type

/**
 * The writes of whoever runs an entity's CLI carry the fence of the conversation's lease (`Lease.hold`), when
 * there is one: once a newer holder has `claim`ed the entity, a write with an older token is refused
 * (`Fenced`, with operation `turnLog`) and changes nothing, so a holder that was paused while another took
 * the entity over cannot overwrite the new holder's record when it wakes. A write without a fence is not
 * checked (a conversation without a fencing store has one writer by the cluster's word alone).
 *
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /**
   * Marks the turn started (counting the attempt), or gives its stored messages when it finished before. The
   * log keeps a digest of the prompt (not the prompt), so a turn id asked again with another prompt is told.
   * With `maxAttempts`, a turn started that often already is refused (`Exhausted`) and not counted again.
   */
  readonly begin: (entityId: string, turnId: string, prompt: string, maxAttempts?: number) => Effect.Effect<Begin>
  /**
   * Records that `fence` holds the entity from now on: writes with an older token are refused. Refused itself
   * when a newer token claimed the entity already. Returns once no write with an older token is under way.
   */
  readonly claim: (entityId: string, fence: SessionStore.Fence) => Effect.Effect<void, SessionStore.SessionStoreError>
  /**
   * Keeps what a running turn did so far (the messages with its tool calls and their results), for a retry
   * to tell the model; replaced at each call, kept after the turn finishes.
   */
  readonly progress: MessagesWrite
  /**
   * Keeps the uuid a turn's attempt names its prompt by, before the prompt is sent: a retry rewinds the
   * files that attempt changed to that message (`rewind_files`). Replaced at each attempt.
   */
  readonly sent: (entityId: string, turnId: string, promptId: string) => Effect.Effect<void>
  /** A finished turn's stored messages; `undefined` when it has not finished (or is not known). */
  readonly answer: (entityId: string, turnId: string) => Effect.Effect<ReadonlyArray<Message.Message> | undefined>
  /**
   * Stores a finished turn's messages, up to its result, and with `resumeAt` the entity's resume point (as
   * `setResumeAt` does) in the same write: one commit at the turn's end rather than two (issue 23).
   */
  readonly finish: (
    entityId: string,
    turnId: string,
    messages: ReadonlyArray<Message.Message>,
    fence?: SessionStore.Fence | undefined,
    resumeAt?: string | undefined
  ) => Effect.Effect<void, SessionStore.SessionStoreError>
  /** The CLI session id the entity's conversation continues, once it has one. */
  readonly sessionId: (entityId: string) => Effect.Effect<string | undefined>
  readonly setSessionId: (
    entityId: string,
    sessionId: string,
    fence?: SessionStore.Fence | undefined
  ) => Effect.Effect<void, SessionStore.SessionStoreError>
  /**
   * Where a retry resumes the conversation: the last answer (assistant message uuid) of the entity's last
   * finished turn, so that a cut turn is dropped from it rather than resumed half done.
   */
  readonly resumeAt: (entityId: string) => Effect.Effect<string | undefined>
  readonly setResumeAt: (
    entityId: string,
    messageId: string,
    fence?: SessionStore.Fence | undefined
  ) => Effect.Effect<void, SessionStore.SessionStoreError>
  /** The settings the entity's RPCs changed; empty when none did. */
  readonly settings: (entityId: string) => Effect.Effect<Settings>
  /** Replaces the entity's settings. */
  readonly setSettings: (entityId: string, settings: Settings) => Effect.Effect<void>
}

/**
 * A holder's write of a turn's messages (see `Shape`).
 *
 * @since 0.1.0
 * @category models
 */
export type MessagesWrite = (
  entityId: string,
  turnId: string,
  messages: ReadonlyArray<Message.Message>,
  fence?: SessionStore.Fence | undefined
) => Effect.Effect<void, SessionStore.SessionStoreError>

/**
 * @since 0.1.0
 * @category services
 */
export class TurnLog extends Context.Service<TurnLog, Shape>()("effect-claude-code/cluster/TurnLog") {}

type Entry = {
  readonly attempts: number
  readonly digest: string
  readonly messages?: ReadonlyArray<unknown>
  readonly progress?: ReadonlyArray<unknown>
  readonly promptId?: string
}

/**
 * The digest a turn's prompt is kept as (SHA-256, hex).
 *
 * @since 0.1.0
 * @category encoding
 */
export const digest = (prompt: string): string => Crypto.createHash("sha256").update(prompt).digest("hex")

/**
 * A log in this process's memory: enough for tests and for a runner that keeps its entities (it does not
 * survive the process).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Shape> = Effect.gen(function*() {
  const turns = yield* Ref.make(new Map<string, Entry>())
  const sessions = yield* Ref.make(new Map<string, string>())
  const resumePoints = yield* Ref.make(new Map<string, string>())
  const settings = yield* Ref.make(new Map<string, Settings>())
  // The newest token that claimed each entity.
  const claims = yield* Ref.make(new Map<string, number>())
  const key = (entityId: string, turnId: string) => JSON.stringify([entityId, turnId])
  // Sets fields of a begun turn's entry; nothing for a turn never begun (a begin records the digest first).
  const change = (entityId: string, turnId: string, fields: Partial<Entry>) =>
    Ref.update(turns, (map) => {
      const entry = map.get(key(entityId, turnId))
      return entry === undefined ? map : new Map(map).set(key(entityId, turnId), { ...entry, ...fields })
    })
  // `write` unless a newer token than `fence`'s claimed the entity; one step, so no claim comes between.
  const fenced = (entityId: string, fence: SessionStore.Fence | undefined, write: Effect.Effect<void>) =>
    fence === undefined ? write : Effect.flatMap(Ref.get(claims), (map) => {
      const current = map.get(entityId) ?? 0
      return current > fence.token ? Effect.fail(refused(entityId, fence, current)) : write
    })
  return TurnLog.of({
    begin: (entityId, turnId, prompt, maxAttempts) =>
      Ref.modify(turns, (map): [Begin, Map<string, Entry>] => {
        const entry = map.get(key(entityId, turnId))
        const promptDigest = digest(prompt)
        if (entry !== undefined && entry.digest !== promptDigest) return [{ _tag: "Conflict" }, map]
        if (entry?.messages !== undefined) return [{ _tag: "Done", messages: decodeAll(entry.messages) }, map]
        if (exhausted(entry?.attempts ?? 0, maxAttempts)) return [{ _tag: "Exhausted", attempts: entry!.attempts }, map]
        const attempts = (entry?.attempts ?? 0) + 1
        return [
          started(attempts, entry?.progress, entry?.promptId),
          new Map(map).set(key(entityId, turnId), { ...entry, attempts, digest: promptDigest })
        ]
      }),
    answer: (entityId, turnId) =>
      Effect.map(Ref.get(turns), (map) => {
        const stored = map.get(key(entityId, turnId))?.messages
        return stored === undefined ? undefined : decodeAll(stored)
      }),
    claim: (entityId, fence) =>
      Effect.flatten(Ref.modify(claims, (map): [Effect.Effect<void, SessionStore.SessionStoreError>, Map<string, number>] => {
        const current = map.get(entityId) ?? 0
        return current > fence.token
          ? [Effect.fail(refused(entityId, fence, current)), map]
          : [Effect.void, new Map(map).set(entityId, fence.token)]
      })),
    progress: (entityId, turnId, messages, fence) =>
      fenced(entityId, fence, change(entityId, turnId, { progress: messages.map(Message.encodeMessage) })),
    sent: (entityId, turnId, promptId) => change(entityId, turnId, { promptId }),
    finish: (entityId, turnId, messages, fence, resumeAt) =>
      fenced(
        entityId,
        fence,
        Effect.andThen(
          change(entityId, turnId, { messages: messages.map(Message.encodeMessage) }),
          resumeAt === undefined ? Effect.void : Ref.update(resumePoints, (map) => new Map(map).set(entityId, resumeAt))
        )
      ),
    sessionId: (entityId) => Effect.map(Ref.get(sessions), (map) => map.get(entityId)),
    setSessionId: (entityId, sessionId, fence) =>
      fenced(entityId, fence, Ref.update(sessions, (map) => new Map(map).set(entityId, sessionId))),
    resumeAt: (entityId) => Effect.map(Ref.get(resumePoints), (map) => map.get(entityId)),
    setResumeAt: (entityId, messageId, fence) =>
      fenced(entityId, fence, Ref.update(resumePoints, (map) => new Map(map).set(entityId, messageId))),
    settings: (entityId) => Effect.map(Ref.get(settings), (map) => map.get(entityId) ?? {}),
    setSettings: (entityId, value) => Ref.update(settings, (map) => new Map(map).set(entityId, value))
  })
})

// Whether a turn started `attempts` times may not start again.
const exhausted = (attempts: number, maxAttempts: number | undefined) => maxAttempts !== undefined && attempts >= maxAttempts

// A write of a holder whose token is older than the entity's `current` claim.
const refused = (entityId: string, fence: SessionStore.Fence, current: number) =>
  new SessionStore.SessionStoreError({
    reason: new SessionStore.Fenced({ operation: "turnLog", key: entityId, lease: fence.lease, token: fence.token, current })
  })

// A start, with the progress and the prompt's uuid of the attempts before when they kept any.
const started = (attempt: number, progress: ReadonlyArray<unknown> | undefined, promptId: string | undefined): Begin => ({
  _tag: "Start",
  attempt,
  ...(progress === undefined ? {} : { interrupted: decodeAll(progress) }),
  ...(promptId === undefined ? {} : { promptId })
})

const decodeSettings = Schema.decodeUnknownSync(Schema.fromJsonString(Settings))

/**
 * Decodes stored wire messages; they were encoded by this library, so a failure is a defect.
 *
 * @since 0.1.0
 * @category encoding
 */
export const decodeAll = (stored: ReadonlyArray<unknown>): ReadonlyArray<Message.Message> =>
  stored.map((json) => {
    const result = Message.decodeMessage(json)
    if (result._tag === "Failure") throw result.failure
    return result.success
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TurnLog> = Layer.effect(TurnLog, makeMemory)

/**
 * How long the SQL log keeps turns: a turn goes when it is older than `maxAge` (since it last began or
 * finished) or when its entity has `maxTurns` newer ones. Applied each time a turn finishes. A turn no longer
 * kept is a new turn if its id is asked again (re-delivery comes within seconds, not days). Defaults: 30 days,
 * 1000 turns an entity.
 *
 * @since 0.1.0
 * @category models
 */
export interface Retention {
  readonly maxAge?: Duration.Input | undefined
  readonly maxTurns?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SqlOptions {
  /** The tables' names start with it (`claude_turns`, ...). Default `claude`. */
  readonly prefix?: string | undefined
  readonly retention?: Retention | undefined
}

/**
 * A log in SQL tables (created when missing): it survives restarts and is shared by the runners of one
 * database. Works on SQLite and PostgreSQL. A database failure is a defect: the entity cannot tell a new turn
 * from a re-delivered one without its log.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options: SqlOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prefix = options.prefix ?? "claude"
    const turns = sql(`${prefix}_turns`)
    const sessions = sql(`${prefix}_sessions`)
    const settings = sql(`${prefix}_settings`)
    const claims = sql(`${prefix}_turn_fences`)
    const maxAge = Duration.fromInputUnsafe(options.retention?.maxAge ?? Duration.days(30))
    const maxTurns = options.retention?.maxTurns ?? 1000
    yield* sql`CREATE TABLE IF NOT EXISTS ${turns} (
      entity_id TEXT NOT NULL, turn_id TEXT NOT NULL, attempts INTEGER NOT NULL, prompt_digest TEXT NOT NULL,
      messages TEXT, progress TEXT, prompt_id TEXT, updated_at BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (entity_id, turn_id))`
    // Asked in a transaction of its own (a savepoint within the caller's): a failed statement would otherwise
    // abort the caller's transaction on PostgreSQL.
    const lacks = (column: string, table = turns) =>
      Effect.map(Effect.exit(sql.withTransaction(sql`SELECT ${sql(column)} FROM ${table} WHERE 1 = 0`)), Exit.isFailure)
    // A table made before turns kept their prompt's digest gets the column; its turns' digests are unknown ('').
    if (yield* lacks("prompt_digest")) yield* sql`ALTER TABLE ${turns} ADD COLUMN prompt_digest TEXT NOT NULL DEFAULT ''`
    // Likewise what a running turn did so far (its messages with tool calls or results, JSON).
    if (yield* lacks("progress")) yield* sql`ALTER TABLE ${turns} ADD COLUMN progress TEXT`
    // Likewise the uuid of the prompt the last attempt sent (for a retry to rewind its files to).
    if (yield* lacks("prompt_id")) yield* sql`ALTER TABLE ${turns} ADD COLUMN prompt_id TEXT`
    // Likewise the time of a turn's last change (milliseconds); the turns already there count from now.
    if (yield* lacks("updated_at")) {
      yield* sql`ALTER TABLE ${turns} ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0`
      yield* sql`UPDATE ${turns} SET updated_at = ${Date.now()}`
    }
    // One statement (one round trip on the turn's way to its end, issue 23).
    const retain = (entityId: string, now: number) =>
      sql`DELETE FROM ${turns} WHERE updated_at < ${now - Duration.toMillis(maxAge)} OR (entity_id = ${entityId} AND turn_id NOT IN (
        SELECT turn_id FROM ${turns} WHERE entity_id = ${entityId} ORDER BY updated_at DESC, turn_id DESC LIMIT ${maxTurns}))`
    yield* sql`CREATE TABLE IF NOT EXISTS ${sessions} (entity_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, resume_at TEXT)`
    // A table made before retries resumed at the last answer gets the column.
    if (yield* lacks("resume_at", sessions)) yield* sql`ALTER TABLE ${sessions} ADD COLUMN resume_at TEXT`
    yield* sql`CREATE TABLE IF NOT EXISTS ${settings} (entity_id TEXT PRIMARY KEY, settings TEXT NOT NULL)`
    yield* sql`CREATE TABLE IF NOT EXISTS ${claims} (entity_id TEXT PRIMARY KEY, token BIGINT NOT NULL)`
    const forUpdate = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE"), orElse: () => sql.literal("") })
    const forShare = sql.onDialectOrElse({ pg: () => sql.literal("FOR SHARE"), orElse: () => sql.literal("") })
    // The newest token that claimed the entity; 0 for none.
    const claimed = (entityId: string) =>
      Effect.map(
        sql<{ readonly token: number | string }>`SELECT token FROM ${claims} WHERE entity_id = ${entityId} ${forShare}`,
        ([row]) => Number(row?.token ?? 0)
      )
    // A holder's write, in one transaction with the look at the entity's claim: the claim's row stays locked
    // (shared) until the write commits, so a newer claim waits for it, and no stale write lands after one.
    const fenced = <A>(entityId: string, fence: SessionStore.Fence | undefined, write: Effect.Effect<A, unknown>) =>
      fence === undefined
        ? Effect.orDie(sql.withTransaction(write))
        : Effect.gen(function*() {
          yield* Fencing.idleLimit(sql)
          const current = yield* Effect.orDie(claimed(entityId))
          if (current > fence.token) return yield* Effect.fail(refused(entityId, fence, current))
          return yield* Effect.orDie(write)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    // Takes the claim's row for the update (waiting for the writes that share it), keeping the newest token.
    const claim = (entityId: string, fence: SessionStore.Fence) =>
      Effect.gen(function*() {
        const [row] = yield* Effect.orDie(sql<{ readonly token: number | string }>`INSERT INTO ${claims} (entity_id, token)
          VALUES (${entityId}, ${fence.token}) ON CONFLICT (entity_id) DO UPDATE SET token =
          CASE WHEN ${claims}.token < excluded.token THEN excluded.token ELSE ${claims}.token END RETURNING token`)
        const current = Number(row?.token ?? 0)
        if (current > fence.token) return yield* Effect.fail(refused(entityId, fence, current))
      })
    // The turn's row is made first (attempt 0) and then read locked, so two runners beginning one turn take
    // turns: the second reads the first's attempt, never both attempt 1 (SQLite writes one at a time).
    const beginInSteps = (entityId: string, turnId: string, promptDigest: string, maxAttempts: number | undefined) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO ${turns} (entity_id, turn_id, attempts, prompt_digest, updated_at)
          VALUES (${entityId}, ${turnId}, 0, ${promptDigest}, ${Date.now()}) ON CONFLICT (entity_id, turn_id) DO NOTHING`
        const rows = yield* sql<{
          readonly attempts: number
          readonly prompt_digest: string
          readonly messages: string | null
          readonly progress: string | null
          readonly prompt_id: string | null
        }>`SELECT attempts, prompt_digest, messages, progress, prompt_id FROM ${turns}
          WHERE entity_id = ${entityId} AND turn_id = ${turnId} ${forUpdate}`
        const row = rows[0]
        if (row !== undefined && row.prompt_digest !== "" && row.prompt_digest !== promptDigest) {
          return { _tag: "Conflict" } as const
        }
        if (row?.messages != null) {
          return { _tag: "Done", messages: decodeAll(JSON.parse(row.messages)) } as const
        }
        const attempts = Number(row?.attempts ?? 0)
        if (exhausted(attempts, maxAttempts)) return { _tag: "Exhausted", attempts } as const
        const attempt = attempts + 1
        yield* sql`UPDATE ${turns} SET attempts = ${attempt}, updated_at = ${Date.now()}
          WHERE entity_id = ${entityId} AND turn_id = ${turnId}`
        return started(attempt, row?.progress == null ? undefined : JSON.parse(row.progress), row?.prompt_id ?? undefined)
      }).pipe(sql.withTransaction)
    // On PostgreSQL a begin is one statement, so one round trip before the prompt reaches the CLI rather than
    // five (BEGIN, the insert, the locked read, the count, COMMIT: 10 to 25 ms of a turn on a loaded 2-core
    // machine, issue 23). The upsert counts the start when the turn may start (its row locked, as the steps
    // above lock it: a second begin of the turn waits, then counts attempt 2); otherwise it changes nothing and
    // the row is read as it is, for the answer the steps would give. That read sees the statement's snapshot,
    // which misses (or shows as it was) a row another transaction changed while this one waited for it: when
    // what it shows would have been started, or it shows nothing, the steps decide. (A digest is kept once,
    // messages are never taken back and attempts only grow, so what it shows otherwise still holds.)
    //
    // Its commit does not wait for the disk (`synchronous_commit` off for its own transaction only, never for
    // a caller's it runs in): a flush is most of a begin's time on a loaded machine (median 9 to 10 ms against
    // 1.2 to 1.5 ms at a load of 19 on 2 cores; the 5 round trips before, 11 to 19 ms). Losing it to a
    // database crash is harmless: PostgreSQL writes its log in order, so the next synchronous commit anywhere
    // on the server makes it durable too, and the attempt's own come right after it (its first saved reply,
    // before the client sees anything; a progress mark for a tool call; the store's appends). Lost before
    // them, the attempt has nothing durable behind it, and the re-delivered request begins the turn as new:
    // attempt 1 again with no note for the model, as a crash before the first progress mark gives anyway.
    const beginAtOnce = (entityId: string, turnId: string, promptDigest: string, maxAttempts: number | undefined, commit: "on" | "off") =>
      Effect.flatMap(
        sql<{
          readonly started: boolean
          readonly attempts: number
          readonly prompt_digest: string
          readonly messages: string | null
          readonly progress: string | null
          readonly prompt_id: string | null
        }>`WITH started AS (
          INSERT INTO ${turns} AS t (entity_id, turn_id, attempts, prompt_digest, updated_at)
          VALUES (${entityId}, ${turnId}, 1, ${promptDigest}, ${Date.now()})
          ON CONFLICT (entity_id, turn_id) DO UPDATE SET attempts = t.attempts + 1, updated_at = excluded.updated_at
          WHERE (t.prompt_digest = '' OR t.prompt_digest = excluded.prompt_digest) AND t.messages IS NULL
            AND t.attempts < ${maxAttempts ?? 2147483647}
          RETURNING attempts, prompt_digest, messages, progress, prompt_id)
        SELECT TRUE AS started, attempts, prompt_digest, messages, progress, prompt_id,
          set_config('synchronous_commit', ${commit}, TRUE) AS commit_mode FROM started
        UNION ALL
        SELECT FALSE AS started, attempts, prompt_digest, messages, progress, prompt_id,
          set_config('synchronous_commit', ${commit}, TRUE) AS commit_mode FROM ${turns}
          WHERE entity_id = ${entityId} AND turn_id = ${turnId} AND NOT EXISTS (SELECT 1 FROM started)`,
        ([row]): Effect.Effect<Begin, SqlError.SqlError> => {
          if (row === undefined) return beginInSteps(entityId, turnId, promptDigest, maxAttempts)
          const attempts = Number(row.attempts)
          if (row.started) return Effect.succeed(started(attempts, row.progress == null ? undefined : JSON.parse(row.progress), row.prompt_id ?? undefined))
          if (row.prompt_digest !== "" && row.prompt_digest !== promptDigest) return Effect.succeed({ _tag: "Conflict" })
          if (row.messages != null) return Effect.succeed({ _tag: "Done", messages: decodeAll(JSON.parse(row.messages)) })
          if (exhausted(attempts, maxAttempts)) return Effect.succeed({ _tag: "Exhausted", attempts })
          return beginInSteps(entityId, turnId, promptDigest, maxAttempts)
        }
      )
    const begin = (entityId: string, turnId: string, prompt: string, maxAttempts: number | undefined) =>
      sql.onDialectOrElse({
        pg: () =>
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (outer) =>
            beginAtOnce(entityId, turnId, digest(prompt), maxAttempts, outer._tag === "None" ? "off" : "on")),
        orElse: () => beginInSteps(entityId, turnId, digest(prompt), maxAttempts)
      })
    // The entity's session id was kept when its first message came, before any answer.
    const setResumeAt = (entityId: string, messageId: string) =>
      sql`UPDATE ${sessions} SET resume_at = ${messageId} WHERE entity_id = ${entityId}`
    return TurnLog.of({
      begin: (entityId, turnId, prompt, maxAttempts) => Effect.orDie(begin(entityId, turnId, prompt, maxAttempts)),
      answer: (entityId, turnId) =>
        sql<{ readonly messages: string | null }>`SELECT messages FROM ${turns} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`.pipe(
          Effect.map((rows) => rows[0]?.messages == null ? undefined : decodeAll(JSON.parse(rows[0].messages))),
          Effect.orDie
        ),
      claim,
      progress: (entityId, turnId, messages, fence) => {
        const json = JSON.stringify(messages.map(Message.encodeMessage))
        return fenced(entityId, fence, sql`UPDATE ${turns} SET progress = ${json} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`)
      },
      sent: (entityId, turnId, promptId) =>
        Effect.orDie(sql`UPDATE ${turns} SET prompt_id = ${promptId} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`),
      // Finishing comes after a begin, which made the row. The log is trimmed on the way: it grows here. One
      // transaction (the fence's) with the resume point, so one commit (a disk flush) on the turn's way to its
      // end: the resume point in a transaction of its own and two trims made 12 round trips and 2 commits on
      // PostgreSQL, 16 to 80 ms at a load of 15 on 2 cores; now 7 and 1 (issue 23).
      finish: (entityId, turnId, messages, fence, resumeAt) => {
        const json = JSON.stringify(messages.map(Message.encodeMessage))
        const now = Date.now()
        return fenced(
          entityId,
          fence,
          Effect.all([
            sql`UPDATE ${turns} SET messages = ${json}, updated_at = ${now} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`,
            resumeAt === undefined ? Effect.void : setResumeAt(entityId, resumeAt),
            retain(entityId, now)
          ], { discard: true })
        )
      },
      sessionId: (entityId) =>
        sql<{ readonly session_id: string }>`SELECT session_id FROM ${sessions} WHERE entity_id = ${entityId}`.pipe(
          Effect.map((rows) => rows[0]?.session_id),
          Effect.orDie
        ),
      setSessionId: (entityId, sessionId, fence) =>
        fenced(
          entityId,
          fence,
          sql`INSERT INTO ${sessions} (entity_id, session_id) VALUES (${entityId}, ${sessionId})
          ON CONFLICT (entity_id) DO UPDATE SET session_id = ${sessionId}`
        ),
      resumeAt: (entityId) =>
        sql<{ readonly resume_at: string | null }>`SELECT resume_at FROM ${sessions} WHERE entity_id = ${entityId}`.pipe(
          Effect.map((rows) => rows[0]?.resume_at ?? undefined),
          Effect.orDie
        ),
      setResumeAt: (entityId, messageId, fence) => fenced(entityId, fence, setResumeAt(entityId, messageId)),
      // Written by this log from the schema: a row that does not decode is a defect.
      settings: (entityId) =>
        sql<{ readonly settings: string }>`SELECT settings FROM ${settings} WHERE entity_id = ${entityId}`.pipe(
          Effect.map((rows) => rows[0] === undefined ? {} : decodeSettings(rows[0].settings)),
          Effect.orDie
        ),
      setSettings: (entityId, value) => {
        const json = JSON.stringify(value)
        return Effect.orDie(sql`INSERT INTO ${settings} (entity_id, settings) VALUES (${entityId}, ${json})
          ON CONFLICT (entity_id) DO UPDATE SET settings = ${json}`)
      }
    })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options: SqlOptions = {}) =>
  Layer.effect(TurnLog, Effect.orDie(makeSql(options)))
