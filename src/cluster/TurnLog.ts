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
 * begun with another prompt (`Conflict`: nothing is counted), or one whose attempts reached `begin`'s `limit`
 * (`Exhausted`: `attempts`, the starts it had; this refusal is not counted).
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
 * How an attempt of a turn ended without finishing, as the runner that ran it saw it (`ended`): `released`, cut
 * from outside the turn (its runner stopped and the drain deadline passed, its entity moved, its lease was taken
 * by another runner); `failed`, the turn itself failed (its CLI died on its own, the model or a tool failed).
 * An attempt with neither is `unended`: its runner died or hung before it could tell (a SIGKILL, an
 * out-of-memory kill, a pause), which may be the turn's doing.
 *
 * @since 0.1.0
 * @category models
 */
export type End = "released" | "failed"

/**
 * When `begin` refuses a turn (`Exhausted`), by how its attempts before ended: `failed` ones, or `unended` ones
 * (see {@link End}); a limit left out does not refuse. Released attempts never count. A number `n` is the old
 * rule: refused once `n` attempts failed or are unended together.
 *
 * @since 0.1.0
 * @category models
 */
export type Limit = number | { readonly failed?: number | undefined; readonly unended?: number | undefined }

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
   * With a `limit`, a turn whose attempts before ended as the limit says is refused (`Exhausted`) and not
   * counted again.
   */
  readonly begin: (entityId: string, turnId: string, prompt: string, limit?: Limit) => Effect.Effect<Begin>
  /**
   * Records how the turn's attempt number `attempt` ended without finishing, when it is still the turn's last
   * attempt and no end was recorded for it: a runner that comes back from a pause after another has started
   * the turn again changes nothing. Not fenced: it only tells the next `begin` why the attempt ended.
   */
  readonly ended: (entityId: string, turnId: string, attempt: number, end: End) => Effect.Effect<void>
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
  /**
   * What the turn's running attempt kept with `progress` so far (`interrupted` of `begin`, read again);
   * `undefined` when none kept any. A retry reads it once its runner claimed the log: an attempt of another
   * runner may have run tools between this runner's `begin` and its claim.
   */
  readonly progressOf: (entityId: string, turnId: string) => Effect.Effect<ReadonlyArray<Message.Message> | undefined>
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
  // The attempts before the last one that failed, and that ended unknown; how the last one ended, if told.
  readonly failed?: number
  readonly unended?: number
  readonly end?: End | undefined
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
  // The messages a turn's entry keeps in `field`, decoded; `undefined` when it keeps none.
  const kept = (entityId: string, turnId: string, field: "progress" | "messages") =>
    Effect.map(Ref.get(turns), (map) => {
      const encoded = map.get(key(entityId, turnId))?.[field]
      return encoded === undefined ? undefined : decodeAll(encoded)
    })
  const keepResumeAt = (entityId: string, messageId: string) =>
    Ref.update(resumePoints, (map) => new Map(map).set(entityId, messageId))
  // `write` unless a newer token than `fence`'s claimed the entity; one step, so no claim comes between.
  const fenced = (entityId: string, fence: SessionStore.Fence | undefined, write: Effect.Effect<void>) =>
    fence === undefined ? write : Effect.flatMap(Ref.get(claims), (map) => {
      const current = map.get(entityId) ?? 0
      return current > fence.token ? Effect.fail(Fencing.refused("turnLog", entityId, fence, current)) : write
    })
  return TurnLog.of({
    begin: (entityId, turnId, prompt, limit) =>
      Ref.modify(turns, (map): [Begin, Map<string, Entry>] => {
        const entry = map.get(key(entityId, turnId))
        const promptDigest = digest(prompt)
        if (entry !== undefined && entry.digest !== promptDigest) return [{ _tag: "Conflict" }, map]
        if (entry?.messages !== undefined) return [{ _tag: "Done", messages: decodeAll(entry.messages) }, map]
        const ends = tally(entry?.attempts ?? 0, entry?.failed ?? 0, entry?.unended ?? 0, entry?.end)
        if (exhausted(ends, limit)) return [{ _tag: "Exhausted", attempts: entry!.attempts }, map]
        const attempts = (entry?.attempts ?? 0) + 1
        return [
          started(attempts, entry?.progress, entry?.promptId),
          new Map(map).set(key(entityId, turnId), { ...entry, ...ends, end: undefined, attempts, digest: promptDigest })
        ]
      }),
    ended: (entityId, turnId, attempt, end) =>
      Ref.update(turns, (map) => {
        const entry = map.get(key(entityId, turnId))
        return entry === undefined || entry.attempts !== attempt || entry.end !== undefined || entry.messages !== undefined
          ? map
          : new Map(map).set(key(entityId, turnId), { ...entry, end })
      }),
    progressOf: (entityId, turnId) => kept(entityId, turnId, "progress"),
    answer: (entityId, turnId) => kept(entityId, turnId, "messages"),
    claim: (entityId, fence) =>
      Effect.flatten(Ref.modify(claims, (map): [Effect.Effect<void, SessionStore.SessionStoreError>, Map<string, number>] => {
        const current = map.get(entityId) ?? 0
        return current > fence.token
          ? [Effect.fail(Fencing.refused("turnLog", entityId, fence, current)), map]
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
          resumeAt === undefined ? Effect.void : keepResumeAt(entityId, resumeAt)
        )
      ),
    sessionId: (entityId) => Effect.map(Ref.get(sessions), (map) => map.get(entityId)),
    setSessionId: (entityId, sessionId, fence) =>
      fenced(entityId, fence, Ref.update(sessions, (map) => new Map(map).set(entityId, sessionId))),
    resumeAt: (entityId) => Effect.map(Ref.get(resumePoints), (map) => map.get(entityId)),
    setResumeAt: (entityId, messageId, fence) =>
      fenced(entityId, fence, keepResumeAt(entityId, messageId)),
    settings: (entityId) => Effect.map(Ref.get(settings), (map) => map.get(entityId) ?? {}),
    setSettings: (entityId, value) => Ref.update(settings, (map) => new Map(map).set(entityId, value))
  })
})

// The ends of a turn's attempts so far: those counted at the begins before, with the last attempt's (no attempt
// yet: none). An attempt whose end nobody recorded is unended.
const tally = (attempts: number, failed: number, unended: number, end: End | null | undefined) =>
  attempts === 0
    ? { failed, unended }
    : { failed: failed + (end === "failed" ? 1 : 0), unended: unended + (end == null ? 1 : 0) }

// Whether a turn whose attempts ended so may not start again.
const exhausted = (ends: { readonly failed: number; readonly unended: number }, limit: Limit | undefined) =>
  limit === undefined
    ? false
    : typeof limit === "number"
    ? ends.failed + ends.unended >= limit
    : (limit.failed !== undefined && ends.failed >= limit.failed) || (limit.unended !== undefined && ends.unended >= limit.unended)

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
      messages TEXT, progress TEXT, prompt_id TEXT, updated_at BIGINT NOT NULL DEFAULT 0,
      failed INTEGER NOT NULL DEFAULT 0, unended INTEGER NOT NULL DEFAULT 0, ended TEXT, PRIMARY KEY (entity_id, turn_id))`
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
    // Likewise how attempts ended (see `End`); the attempts already there ended unknown.
    if (yield* lacks("ended")) {
      yield* sql`ALTER TABLE ${turns} ADD COLUMN failed INTEGER NOT NULL DEFAULT 0`
      yield* sql`ALTER TABLE ${turns} ADD COLUMN unended INTEGER NOT NULL DEFAULT 0`
      yield* sql`ALTER TABLE ${turns} ADD COLUMN ended TEXT`
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
          if (current > fence.token) return yield* Effect.fail(Fencing.refused("turnLog", entityId, fence, current))
          return yield* Effect.orDie(write)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    // Takes the claim's row for the update (waiting for the writes that share it), keeping the newest token.
    const claim = (entityId: string, fence: SessionStore.Fence) =>
      Effect.gen(function*() {
        const [row] = yield* Effect.orDie(sql<{ readonly token: number | string }>`INSERT INTO ${claims} (entity_id, token)
          VALUES (${entityId}, ${fence.token}) ON CONFLICT (entity_id) DO UPDATE SET token =
          CASE WHEN ${claims}.token < excluded.token THEN excluded.token ELSE ${claims}.token END RETURNING token`)
        const current = Number(row?.token ?? 0)
        if (current > fence.token) return yield* Effect.fail(Fencing.refused("turnLog", entityId, fence, current))
      })
    // The turn's row is made first (attempt 0) and then read locked, so two runners beginning one turn take
    // turns: the second reads the first's attempt, never both attempt 1 (SQLite writes one at a time).
    const beginInSteps = (entityId: string, turnId: string, promptDigest: string, limit: Limit | undefined) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO ${turns} (entity_id, turn_id, attempts, prompt_digest, updated_at)
          VALUES (${entityId}, ${turnId}, 0, ${promptDigest}, ${Date.now()}) ON CONFLICT (entity_id, turn_id) DO NOTHING`
        const rows = yield* sql<{
          readonly attempts: number
          readonly prompt_digest: string
          readonly messages: string | null
          readonly progress: string | null
          readonly prompt_id: string | null
          readonly failed: number
          readonly unended: number
          readonly ended: End | null
        }>`SELECT attempts, prompt_digest, messages, progress, prompt_id, failed, unended, ended FROM ${turns}
          WHERE entity_id = ${entityId} AND turn_id = ${turnId} ${forUpdate}`
        const row = rows[0]
        if (row !== undefined && row.prompt_digest !== "" && row.prompt_digest !== promptDigest) {
          return { _tag: "Conflict" } as const
        }
        if (row?.messages != null) {
          return { _tag: "Done", messages: decodeAll(JSON.parse(row.messages)) } as const
        }
        const attempts = Number(row?.attempts ?? 0)
        const ends = tally(attempts, Number(row?.failed ?? 0), Number(row?.unended ?? 0), row?.ended)
        if (exhausted(ends, limit)) return { _tag: "Exhausted", attempts } as const
        const attempt = attempts + 1
        yield* sql`UPDATE ${turns} SET attempts = ${attempt}, failed = ${ends.failed}, unended = ${ends.unended}, ended = NULL,
          updated_at = ${Date.now()} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`
        return started(attempt, row?.progress == null ? undefined : JSON.parse(row.progress), row?.prompt_id ?? undefined)
      }).pipe(sql.withTransaction)
    // On PostgreSQL a turn's first start is one statement, so one round trip before the prompt reaches the CLI
    // rather than five (BEGIN, the insert, the locked read, the count, COMMIT: 10 to 25 ms of a turn on a loaded
    // 2-core machine, issue 23). It inserts the turn's row as attempt 1; a row already there (a retry, a turn
    // done, another prompt under the id, a begin racing this one) inserts nothing, and the steps decide, since a
    // retry's limit depends on how its attempts ended (`tally`).
    //
    // Its commit does not wait for the disk (`synchronous_commit` off for its own transaction only, never for
    // a caller's it runs in): a flush is most of a begin's time on a loaded machine (median 9 to 10 ms against
    // 1.2 to 1.5 ms at a load of 19 on 2 cores; the 5 round trips before, 11 to 19 ms). Losing it to a
    // database crash is harmless: PostgreSQL writes its log in order, so the next synchronous commit anywhere
    // on the server makes it durable too, and the attempt's own come right after it (its first saved reply,
    // before the client sees anything; a progress mark for a tool call; the store's appends). Lost before
    // them, the attempt has nothing durable behind it, and the re-delivered request begins the turn as new:
    // attempt 1 again with no note for the model, as a crash before the first progress mark gives anyway.
    const beginFirst = (entityId: string, turnId: string, promptDigest: string, limit: Limit | undefined, commit: "on" | "off") =>
      Effect.flatMap(
        sql<{ readonly attempts: number }>`WITH started AS (
          INSERT INTO ${turns} (entity_id, turn_id, attempts, prompt_digest, updated_at)
          VALUES (${entityId}, ${turnId}, 1, ${promptDigest}, ${Date.now()})
          ON CONFLICT (entity_id, turn_id) DO NOTHING
          RETURNING attempts)
        SELECT attempts, set_config('synchronous_commit', ${commit}, TRUE) AS commit_mode FROM started`,
        ([row]): Effect.Effect<Begin, SqlError.SqlError> =>
          row === undefined
            ? beginInSteps(entityId, turnId, promptDigest, limit)
            : Effect.succeed(started(Number(row.attempts), undefined, undefined))
      )
    const begin = (entityId: string, turnId: string, prompt: string, limit: Limit | undefined) =>
      sql.onDialectOrElse({
        pg: () =>
          exhausted({ failed: 0, unended: 0 }, limit)
            ? beginInSteps(entityId, turnId, digest(prompt), limit)
            : Effect.flatMap(Effect.serviceOption(sql.transactionService), (outer) =>
              beginFirst(entityId, turnId, digest(prompt), limit, outer._tag === "None" ? "off" : "on")),
        orElse: () => beginInSteps(entityId, turnId, digest(prompt), limit)
      })
    // The messages a turn's row keeps in `column`, decoded; `undefined` when it keeps none.
    const kept = (entityId: string, turnId: string, column: "progress" | "messages") =>
      sql<{ readonly kept: string | null }>`SELECT ${sql(column)} AS kept FROM ${turns} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`.pipe(
        Effect.map((rows) => rows[0]?.kept == null ? undefined : decodeAll(JSON.parse(rows[0].kept))),
        Effect.orDie
      )
    // The entity's session id was kept when its first message came, before any answer.
    const setResumeAt = (entityId: string, messageId: string) =>
      sql`UPDATE ${sessions} SET resume_at = ${messageId} WHERE entity_id = ${entityId}`
    return TurnLog.of({
      begin: (entityId, turnId, prompt, limit) => Effect.orDie(begin(entityId, turnId, prompt, limit)),
      ended: (entityId, turnId, attempt, end) =>
        Effect.orDie(sql`UPDATE ${turns} SET ended = ${end} WHERE entity_id = ${entityId} AND turn_id = ${turnId}
          AND attempts = ${attempt} AND ended IS NULL AND messages IS NULL`),
      progressOf: (entityId, turnId) => kept(entityId, turnId, "progress"),
      answer: (entityId, turnId) => kept(entityId, turnId, "messages"),
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
