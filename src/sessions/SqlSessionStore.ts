/**
 * A {@link SessionStore.Shape} in a SQL database, over `effect/sql`'s `SqlClient` (SQLite, PostgreSQL, ...):
 * one table of entries, one row each, in append order. The idempotency of `append` is the table's unique key
 * on (project, session, subpath, uuid): a replayed entry is skipped by the database (`ON CONFLICT DO
 * NOTHING`), entries without a uuid (NULL) are always appended, as the SDK's contract says. Entries are kept
 * as their JSON text, so `load` gives back what was appended.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as Sqlite from "../internal/sqlite.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The table's name (created when missing). Default `claude_session_entries`. */
  readonly table?: string | undefined
}

/**
 * The store over the `SqlClient` in context; creates its table when missing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const sql = yield* SqlClient.SqlClient
  const table = sql(options.table ?? "claude_session_entries")
  const seq = sql.onDialectOrElse({
    pg: () => sql.literal("BIGSERIAL PRIMARY KEY"),
    orElse: () => sql.literal("INTEGER PRIMARY KEY AUTOINCREMENT")
  })
  yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
    seq ${seq},
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    subpath TEXT NOT NULL,
    uuid TEXT,
    entry TEXT NOT NULL,
    written_at BIGINT NOT NULL,
    UNIQUE (project_key, session_id, subpath, uuid)
  )`.pipe(Effect.orDie)

  const fail = (operation: SessionStore.SessionStoreError["operation"], key: string) => (cause: unknown) =>
    new SessionStore.SessionStoreError({ operation, key, cause })
  const where = (key: SessionStore.SessionKey) =>
    sql`project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${key.subpath ?? ""}`

  const append = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.Entry>) => {
    if (!Arr.isReadonlyArrayNonEmpty(entries)) return Effect.void
    const writtenAt = Date.now()
    const rows = Arr.map(entries, (entry) => ({
      project_key: key.projectKey,
      session_id: key.sessionId,
      subpath: key.subpath ?? "",
      uuid: typeof entry.uuid === "string" ? entry.uuid : null,
      entry: JSON.stringify(entry),
      written_at: writtenAt
    }))
    return sql`INSERT INTO ${table} ${sql.insert(rows)} ON CONFLICT DO NOTHING`.pipe(
      sql.withTransaction,
      Effect.asVoid,
      Effect.mapError(fail("append", SessionStore.keyString(key)))
    )
  }

  const load = (key: SessionStore.SessionKey) =>
    sql<{ readonly entry: string }>`SELECT entry FROM ${table} WHERE ${where(key)} ORDER BY seq`.pipe(
      Effect.map((rows) =>
        rows.length === 0 ? Option.none() : Option.some(rows.map((row) => JSON.parse(row.entry) as SessionStore.Entry))
      ),
      Effect.mapError(fail("load", SessionStore.keyString(key)))
    )

  const listSessions = (projectKey: string) =>
    sql<{ readonly session_id: string; readonly mtime: number | string }>`
      SELECT session_id, MAX(written_at) AS mtime FROM ${table}
      WHERE project_key = ${projectKey} AND subpath = '' GROUP BY session_id`.pipe(
      // PostgreSQL gives a BIGINT as a string.
      Effect.map((rows) => rows.map((row) => ({ sessionId: row.session_id, mtime: Number(row.mtime) }))),
      Effect.mapError(fail("listSessions", projectKey))
    )

  const listSubkeys = (key: Omit<SessionStore.SessionKey, "subpath">) =>
    sql<{ readonly subpath: string }>`
      SELECT DISTINCT subpath FROM ${table}
      WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath <> '' ORDER BY subpath`.pipe(
      Effect.map((rows) => rows.map((row) => row.subpath)),
      Effect.mapError(fail("listSubkeys", SessionStore.keyString(key)))
    )

  const remove = (key: SessionStore.SessionKey) =>
    sql`DELETE FROM ${table} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`.pipe(
      Effect.asVoid,
      Effect.mapError(fail("delete", SessionStore.keyString(key)))
    )

  return { append, load, listSessions, listSubkeys, delete: remove } satisfies SessionStore.Shape
})

/**
 * {@link SessionStore.SessionStore} over the `SqlClient` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<SessionStore.SessionStore, never, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore, make(options))

/**
 * The store in an SQLite file (created when missing) through Node's built-in `node:sqlite`: the embedded
 * SQL default, no server and no native build. The file is closed with the layer.
 *
 * @example
 * ```ts
 * import { SqlSessionStore } from "effect-claude-code/sessions"
 * const StoreLive = SqlSessionStore.layerSqlite({ filename: "sessions.db" })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: Options & { readonly filename: string }): Layer.Layer<SessionStore.SessionStore> =>
  layer(options).pipe(Layer.provide(Sqlite.layer(options.filename)))
