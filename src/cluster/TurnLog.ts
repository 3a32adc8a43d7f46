/**
 * What an agent session entity remembers between activations and runners: the CLI session id of each entity
 * (to resume its conversation) and the outcome of each turn by id, so that a re-delivered `Turn` is answered
 * from here instead of being sent to the model again. The conversation itself stays with the CLI (its
 * transcript) or a session store; this log only keeps what makes delivery idempotent.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as SqlClient from "effect/sql/SqlClient"
import * as Crypto from "node:crypto"
import * as Message from "../schema/Message.ts"

/**
 * What `begin` found for a turn id: a new turn (`attempt` 1), one that was started before and never finished
 * (a re-delivery: `attempt` counts the starts, this one included), one whose messages are known, or one that
 * was begun with another prompt (`Conflict`: nothing is counted).
 *
 * @since 0.1.0
 * @category models
 */
export type Begin =
  | { readonly _tag: "Start"; readonly attempt: number }
  | { readonly _tag: "Done"; readonly messages: ReadonlyArray<Message.Message> }
  | { readonly _tag: "Conflict" }

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /**
   * Marks the turn started (counting the attempt), or gives its stored messages when it finished before. The
   * log keeps a digest of the prompt (not the prompt), so a turn id asked again with another prompt is told.
   */
  readonly begin: (entityId: string, turnId: string, prompt: string) => Effect.Effect<Begin>
  /** Stores a finished turn's messages, up to its result. */
  readonly finish: (entityId: string, turnId: string, messages: ReadonlyArray<Message.Message>) => Effect.Effect<void>
  /** The CLI session id the entity's conversation continues, once it has one. */
  readonly sessionId: (entityId: string) => Effect.Effect<string | undefined>
  readonly setSessionId: (entityId: string, sessionId: string) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category services
 */
export class TurnLog extends Context.Service<TurnLog, Shape>()("effect-claude-code/cluster/TurnLog") {}

type Entry = { readonly attempts: number; readonly digest: string; readonly messages?: ReadonlyArray<unknown> }

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
  const key = (entityId: string, turnId: string) => JSON.stringify([entityId, turnId])
  return TurnLog.of({
    begin: (entityId, turnId, prompt) =>
      Ref.modify(turns, (map): [Begin, Map<string, Entry>] => {
        const entry = map.get(key(entityId, turnId))
        const promptDigest = digest(prompt)
        if (entry !== undefined && entry.digest !== promptDigest) return [{ _tag: "Conflict" }, map]
        if (entry?.messages !== undefined) return [{ _tag: "Done", messages: decodeAll(entry.messages) }, map]
        const attempts = (entry?.attempts ?? 0) + 1
        return [{ _tag: "Start", attempt: attempts }, new Map(map).set(key(entityId, turnId), { attempts, digest: promptDigest })]
      }),
    finish: (entityId, turnId, messages) =>
      Ref.update(turns, (map) => {
        const entry = map.get(key(entityId, turnId))
        // Finishing comes after a begin, which recorded the digest.
        if (entry === undefined) return map
        return new Map(map).set(key(entityId, turnId), { ...entry, messages: messages.map(Message.encodeMessage) })
      }),
    sessionId: (entityId) => Effect.map(Ref.get(sessions), (map) => map.get(entityId)),
    setSessionId: (entityId, sessionId) => Ref.update(sessions, (map) => new Map(map).set(entityId, sessionId))
  })
})

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
 * A log in SQL tables (created when missing): it survives restarts and is shared by the runners of one
 * database. Works on SQLite and PostgreSQL. A database failure is a defect: the entity cannot tell a new turn
 * from a re-delivered one without its log.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options: { readonly prefix?: string | undefined } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prefix = options.prefix ?? "claude"
    const turns = sql(`${prefix}_turns`)
    const sessions = sql(`${prefix}_sessions`)
    yield* sql`CREATE TABLE IF NOT EXISTS ${turns} (
      entity_id TEXT NOT NULL, turn_id TEXT NOT NULL, attempts INTEGER NOT NULL, prompt_digest TEXT NOT NULL,
      messages TEXT, PRIMARY KEY (entity_id, turn_id))`
    // A table made before turns kept their prompt's digest gets the column; its turns' digests are unknown ('').
    const hasDigest = yield* Effect.exit(sql`SELECT prompt_digest FROM ${turns} WHERE 1 = 0`)
    if (hasDigest._tag === "Failure") yield* sql`ALTER TABLE ${turns} ADD COLUMN prompt_digest TEXT NOT NULL DEFAULT ''`
    yield* sql`CREATE TABLE IF NOT EXISTS ${sessions} (entity_id TEXT PRIMARY KEY, session_id TEXT NOT NULL)`
    const begin = (entityId: string, turnId: string, prompt: string) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ readonly attempts: number; readonly prompt_digest: string; readonly messages: string | null }>`
          SELECT attempts, prompt_digest, messages FROM ${turns} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`
        const row = rows[0]
        const promptDigest = digest(prompt)
        if (row !== undefined && row.prompt_digest !== "" && row.prompt_digest !== promptDigest) {
          return { _tag: "Conflict" } as const
        }
        if (row?.messages != null) {
          return { _tag: "Done", messages: decodeAll(JSON.parse(row.messages)) } as const
        }
        const attempt = Number(row?.attempts ?? 0) + 1
        yield* sql`INSERT INTO ${turns} (entity_id, turn_id, attempts, prompt_digest)
          VALUES (${entityId}, ${turnId}, ${attempt}, ${promptDigest})
          ON CONFLICT (entity_id, turn_id) DO UPDATE SET attempts = ${attempt}`
        return { _tag: "Start", attempt } as const
      }).pipe(sql.withTransaction)
    return TurnLog.of({
      begin: (entityId, turnId, prompt) => Effect.orDie(begin(entityId, turnId, prompt)),
      // Finishing comes after a begin, which made the row.
      finish: (entityId, turnId, messages) => {
        const json = JSON.stringify(messages.map(Message.encodeMessage))
        return Effect.orDie(sql`UPDATE ${turns} SET messages = ${json} WHERE entity_id = ${entityId} AND turn_id = ${turnId}`)
      },
      sessionId: (entityId) =>
        sql<{ readonly session_id: string }>`SELECT session_id FROM ${sessions} WHERE entity_id = ${entityId}`.pipe(
          Effect.map((rows) => rows[0]?.session_id),
          Effect.orDie
        ),
      setSessionId: (entityId, sessionId) =>
        Effect.orDie(sql`INSERT INTO ${sessions} (entity_id, session_id) VALUES (${entityId}, ${sessionId})
          ON CONFLICT (entity_id) DO UPDATE SET session_id = ${sessionId}`)
    })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options: { readonly prefix?: string | undefined } = {}) =>
  Layer.effect(TurnLog, Effect.orDie(makeSql(options)))
