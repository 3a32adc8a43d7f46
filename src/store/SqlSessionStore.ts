/**
 * A {@link SessionStore.Shape} in a SQL database, over `effect/sql`'s `SqlClient` (SQLite, PostgreSQL, ...),
 * in two tables (created when missing):
 *
 * - entries (`claude_session_entries`): `seq` (append order), `project_key`, `session_id`, `subpath` (`''` for
 *   the main transcript), `uuid` (NULL when the entry has none), `entry` (its JSON text, so `load` gives back
 *   what was appended), `written_at` (ms); unique on (project, session, subpath, uuid). A replayed entry is
 *   skipped by the database (`ON CONFLICT DO NOTHING`); entries without a uuid are always appended, as the
 *   SDK's contract says.
 * - summaries (`claude_session_summaries`): one row per session, `project_key`, `session_id`, `mtime` (ms, the
 *   `written_at` of the last append that added to the main transcript), `data` (the
 *   {@link SessionStore.SummaryData} as JSON text); primary key (project, session), and an index by session
 *   id, for `findProjects`.
 * - tool calls (`claude_session_tool_calls`): the tool-call index, one row per tool call of a main transcript,
 *   `project_key`, `session_id`, `tool_use_id` (primary key together), `tool` (its name), `outcome` (`ok`,
 *   `error`, `denied`; NULL before its result), `command`, `path`, `url` (the strings the filter atoms read),
 *   `uuid` (its entry), `at` (ms: the entry's timestamp). An append to a main transcript merges the calls and
 *   results of the entries it added into it, in its transaction; a database written before the table existed
 *   is indexed once, when the store is made. Queries (`Sessions.select`) read it to find the sessions that
 *   can hold what a filter selects, and read only those.
 * - leases (`claude_session_leases`): one row per lease, `lease` (its name, primary key), `token` (the last
 *   fencing token given), `acquired_at` (ms). `leases.acquire` raises the token in one statement.
 *
 * An append to a main transcript runs in one transaction: it makes sure the session's summary row exists and
 * takes it (`FOR UPDATE` on PostgreSQL; SQLite writes one transaction at a time), inserts the entries, and
 * folds the ones the database took (`RETURNING uuid`) into the summary. Concurrent appends to a session thus
 * fold one after the other, and a replayed append changes nothing. An append with a fence first reads its
 * lease's row in that transaction (`FOR SHARE` on PostgreSQL, which an `acquire` waits for; on SQLite a write
 * after another's commit fails) and writes nothing unless the token is the current one (`Fenced`): once an
 * `acquire` returns, no append with an older token lands. `listSessions` and
 * `listSessionSummaries` read the summaries table only. A database written before the summaries table
 * existed has its sessions summarized once, when the store is made. A database where the tables cannot be
 * made or summarized fails the store's making with `Unavailable`. A row that is not what the store wrote (an
 * entry that is not a JSON object, a summary that is not one) fails the operation that reads it with
 * `InvalidEntry`, naming the session and the row; other sessions are not touched.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import * as Sqlite from "../internal/sqlite.ts"
import * as Fencing from "./internal/fencing.ts"
import * as Jsonl from "./internal/jsonl.ts"
import * as Keys from "./internal/keys.ts"
import * as StoredSummary from "./internal/storedSummary.ts"
import * as ToolCalls from "./internal/toolCalls.ts"
import * as Uuids from "./internal/uuids.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The entries table's name. Default `claude_session_entries`. */
  readonly table?: string | undefined
  /** The summaries table's name. Default `claude_session_summaries`, or `<table>_summaries` for a given `table`. */
  readonly summaryTable?: string | undefined
  /** The leases table's name. Default `claude_session_leases`, or `<table>_leases` for a given `table`. */
  readonly leaseTable?: string | undefined
  /** The tool-call index's name. Default `claude_session_tool_calls`, or `<table>_tool_calls` for a given `table`. */
  readonly toolCallTable?: string | undefined
}

// Rows per INSERT: at most 10 parameters each, far below every database's bound.
const rowsPerInsert = 500

/**
 * The store over the `SqlClient` in context; creates its tables when missing. A database where it cannot
 * fails with `Unavailable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<SessionStore.Shape, SessionStore.SessionStoreError, SqlClient.SqlClient> => {
  const tableName = options.table ?? "claude_session_entries"
  return make_(options, tableName).pipe(Effect.mapError((cause) =>
    new SessionStore.SessionStoreError({ reason: new SessionStore.Unavailable({ store: `SQL table ${tableName}`, cause }) })
  ))
}

const make_ = Effect.fnUntraced(function*(options: Options, tableName: string) {
  const sql = yield* SqlClient.SqlClient
  const summariesName = options.summaryTable ?? (options.table === undefined ? "claude_session_summaries" : `${options.table}_summaries`)
  const leasesName = options.leaseTable ?? (options.table === undefined ? "claude_session_leases" : `${options.table}_leases`)
  const table = sql(tableName)
  const summaries = sql(summariesName)
  const leases = sql(leasesName)
  const toolCallsName = options.toolCallTable ?? (options.table === undefined ? "claude_session_tool_calls" : `${options.table}_tool_calls`)
  const toolCalls = sql(toolCallsName)
  const seq = sql.onDialectOrElse({
    pg: () => sql.literal("BIGSERIAL PRIMARY KEY"),
    orElse: () => sql.literal("INTEGER PRIMARY KEY AUTOINCREMENT")
  })
  const forUpdate = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE"), orElse: () => sql.literal("") })
  const forShare = sql.onDialectOrElse({ pg: () => sql.literal("FOR SHARE"), orElse: () => sql.literal("") })
  yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
    seq ${seq},
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    subpath TEXT NOT NULL,
    uuid TEXT,
    entry TEXT NOT NULL,
    written_at BIGINT NOT NULL,
    UNIQUE (project_key, session_id, subpath, uuid)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS ${summaries} (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    mtime BIGINT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (project_key, session_id)
  )`
  yield* sql`CREATE TABLE IF NOT EXISTS ${leases} (
    lease TEXT PRIMARY KEY,
    token BIGINT NOT NULL,
    acquired_at BIGINT NOT NULL
  )`
  // `findProjects` looks a session up by its id alone.
  yield* sql`CREATE INDEX IF NOT EXISTS ${sql(`${summariesName}_by_session`)} ON ${summaries} (session_id)`
  // A database the index is new to has its sessions indexed below, once.
  // Asked of the catalog, not by a query that fails: a failed statement would abort a transaction the store is made in.
  const indexed = (yield* sql.onDialectOrElse({
    pg: () => sql<{ readonly found: unknown }>`SELECT to_regclass(quote_ident(${toolCallsName})) AS found`,
    orElse: () => sql<{ readonly found: unknown }>`SELECT name AS found FROM sqlite_master WHERE type = 'table' AND name = ${toolCallsName}`
  })).some((row) => row.found !== null && row.found !== undefined)
  yield* sql`CREATE TABLE IF NOT EXISTS ${toolCalls} (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    tool TEXT,
    outcome TEXT,
    command TEXT,
    path TEXT,
    url TEXT,
    uuid TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (project_key, session_id, tool_use_id)
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS ${sql(`${toolCallsName}_by_tool`)} ON ${toolCalls} (tool)`

  const fail = Keys.operationFailed
  // A row the store cannot read back, as `InvalidEntry` naming its session and the row.
  const corrupt = (operation: SessionStore.Operation, key: SessionStore.SessionKey, detail: string, cause?: unknown) =>
    Effect.fail(
      new SessionStore.SessionStoreError({
        reason: new SessionStore.InvalidEntry({ operation, key: Keys.keyString(key), detail, cause })
      })
    )
  const summaryOf = (operation: SessionStore.Operation, key: SessionStore.SessionKey, text: string) => {
    const parsed = StoredSummary.parse(text)
    return "data" in parsed
      ? Effect.succeed(parsed.data)
      : corrupt(operation, key, `the summary row of ${summariesName} is not a session summary: ${parsed.problem}`)
  }
  const where = (key: SessionStore.SessionKey) =>
    sql`project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${key.subpath ?? ""}`
  const session = (key: Omit<SessionStore.SessionKey, "subpath">) =>
    sql`project_key = ${key.projectKey} AND session_id = ${key.sessionId}`

  // The entries the database took, in statements of `rowsPerInsert` rows (a database bounds the parameters
  // of one statement: SQLite to 32,766), inside the append's transaction.
  const insert = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.Entry>, writtenAt: number) =>
    Effect.map(
      Effect.forEach(Arr.chunksOf(entries, rowsPerInsert), (chunk) => insertRows(key, chunk, writtenAt)),
      Arr.flatten
    )

  // The entries of one statement the database took: those without a uuid, and those whose uuid it returned.
  const insertRows = (key: SessionStore.SessionKey, entries: Arr.NonEmptyReadonlyArray<SessionStore.Entry>, writtenAt: number) =>
    Effect.map(
      sql<{ readonly uuid: string | null }>`INSERT INTO ${table} ${
        sql.insert(Arr.map(entries, (entry) => ({
          project_key: key.projectKey,
          session_id: key.sessionId,
          subpath: key.subpath ?? "",
          uuid: typeof entry.uuid === "string" ? entry.uuid : null,
          entry: JSON.stringify(entry),
          written_at: writtenAt
        })))
      } ON CONFLICT DO NOTHING RETURNING uuid`,
      (rows) => {
        const taken = new Set(rows.flatMap((row) => row.uuid === null ? [] : [row.uuid]))
        return entries.filter((entry) => typeof entry.uuid !== "string" || taken.has(entry.uuid))
      }
    )

  // The calls and results of entries a main transcript took, merged into their rows: a field is kept once
  // known, an outcome only gets worse (a call's result may come in a later append than the call).
  const outcomeRank = (column: Statement.Fragment) => sql`CASE ${column} WHEN 'denied' THEN 3 WHEN 'error' THEN 2 WHEN 'ok' THEN 1 ELSE 0 END`
  const incoming = (column: string) => sql.literal(`excluded.${column}`)
  const kept = (column: string) => sql`${toolCalls}.${sql(column)}`
  const index = (key: Omit<SessionStore.SessionKey, "subpath">, entries: ReadonlyArray<SessionStore.Entry>, writtenAt: number) =>
    Effect.forEach(Arr.chunksOf(ToolCalls.rowsOf(entries, writtenAt), rowsPerInsert), (chunk) =>
      sql`INSERT INTO ${toolCalls} ${
        sql.insert(Arr.map(chunk, (row) => ({
          project_key: key.projectKey,
          session_id: key.sessionId,
          tool_use_id: row.toolUseId,
          tool: row.tool,
          outcome: row.outcome,
          command: row.command,
          path: row.path,
          url: row.url,
          uuid: row.uuid,
          at: row.at
        })))
      } ON CONFLICT (project_key, session_id, tool_use_id) DO UPDATE SET
        ${sql.csv(["tool", "command", "path", "url", "uuid"].map((c) => sql`${sql(c)} = COALESCE(${kept(c)}, ${incoming(c)})`))},
        at = CASE WHEN excluded.at < ${kept("at")} THEN excluded.at ELSE ${kept("at")} END,
        outcome = CASE WHEN ${outcomeRank(incoming("outcome"))} > ${outcomeRank(kept("outcome"))}
          THEN excluded.outcome ELSE ${kept("outcome")} END`, { discard: true })

  const append = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.Entry>, fence?: SessionStore.Fence) => {
    // A uuid twice in one batch: the first is the one kept, as across batches.
    const batch = Uuids.distinct(entries)
    if (!Arr.isReadonlyArrayNonEmpty(batch)) return Effect.void
    const writtenAt = Date.now()
    const main = key.subpath === undefined
    return Effect.gen(function*() {
      if (fence !== undefined) {
        yield* Fencing.idleLimit(sql)
        const [lease] = yield* sql<{ readonly token: number | string }>`
          SELECT token FROM ${leases} WHERE lease = ${fence.lease} ${forShare}`
        const current = Number(lease?.token ?? 0)
        if (current !== fence.token) return yield* Effect.fail(Fencing.refused("append", key, fence, current))
      }
      if (!main) return yield* insert(key, batch, writtenAt)
      yield* sql`INSERT INTO ${summaries} ${
        sql.insert({ project_key: key.projectKey, session_id: key.sessionId, mtime: 0, data: "" })
      } ON CONFLICT DO NOTHING`
      const [held] = yield* sql<{ readonly data: string }>`SELECT data FROM ${summaries} WHERE ${session(key)} ${forUpdate}`
      const added = yield* insert(key, batch, writtenAt)
      if (added.length === 0) return
      yield* index(key, added, writtenAt)
      const summary = held === undefined || held.data === "" ? undefined : yield* summaryOf("append", key, held.data)
      const data = SessionStore.foldSummary(summary, added)
      yield* sql`UPDATE ${summaries} SET mtime = ${writtenAt}, data = ${JSON.stringify(data)} WHERE ${session(key)}`
    }).pipe(
      sql.withTransaction,
      Effect.asVoid,
      Effect.mapError(fail("append", Keys.keyString(key)))
    )
  }

  const load = (key: SessionStore.SessionKey) =>
    sql<{ readonly seq: number | string; readonly entry: string }>`SELECT seq, entry FROM ${table} WHERE ${where(key)} ORDER BY seq`.pipe(
      Effect.flatMap((rows) =>
        rows.length === 0 ? Effect.succeedNone : Effect.map(
          Effect.forEach(rows, (row) => {
            const entry = Jsonl.objectOf(row.entry) as SessionStore.Entry | undefined
            return entry === undefined
              ? corrupt("load", key, `the entry row with seq ${row.seq} of ${tableName} is not a JSON object`)
              : Effect.succeed(entry)
          }),
          Option.some
        )
      ),
      Effect.mapError(fail("load", Keys.keyString(key)))
    )

  // A row still without data belongs to an append that has not committed.
  const summaryRows = (projectKey: string) =>
    sql<{ readonly session_id: string; readonly mtime: number | string; readonly data: string }>`
      SELECT session_id, mtime, data FROM ${summaries} WHERE project_key = ${projectKey} AND data <> ''`.pipe(
      // PostgreSQL gives a BIGINT as a string.
      Effect.map((rows) => rows.map((row) => ({ sessionId: row.session_id, mtime: Number(row.mtime), data: row.data })))
    )

  const listSessions = (projectKey: string) =>
    summaryRows(projectKey).pipe(
      Effect.map((rows) => rows.map(({ mtime, sessionId }) => ({ sessionId, mtime }))),
      Effect.mapError(fail("listSessions", projectKey))
    )

  const listSessionSummaries = (projectKey: string) =>
    summaryRows(projectKey).pipe(
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (row) =>
          Effect.map(
            summaryOf("listSessionSummaries", { projectKey, sessionId: row.sessionId }, row.data),
            (data): SessionStore.SessionSummary => ({ ...row, data })
          ))
      ),
      Effect.mapError(fail("listSessionSummaries", projectKey))
    )

  const listSubkeys = (key: Omit<SessionStore.SessionKey, "subpath">) =>
    sql<{ readonly subpath: string }>`
      SELECT DISTINCT subpath FROM ${table} WHERE ${session(key)} AND subpath <> '' ORDER BY subpath`.pipe(
      Effect.map((rows) => rows.map((row) => row.subpath)),
      Effect.mapError(fail("listSubkeys", Keys.keyString(key)))
    )

  const remove = (key: SessionStore.SessionKey) =>
    Effect.all([
      sql`DELETE FROM ${table} WHERE ${session(key)}`,
      sql`DELETE FROM ${summaries} WHERE ${session(key)}`,
      sql`DELETE FROM ${toolCalls} WHERE ${session(key)}`
    ]).pipe(
      sql.withTransaction,
      Effect.asVoid,
      Effect.mapError(fail("delete", Keys.keyString(key)))
    )

  const findProjects = (sessionId: string) =>
    sql<{ readonly project_key: string }>`
      SELECT project_key FROM ${summaries} WHERE session_id = ${sessionId} AND data <> '' ORDER BY project_key`.pipe(
      Effect.map((rows) => rows.map((row) => row.project_key)),
      Effect.mapError(fail("findProjects", sessionId))
    )

  const listProjects = () =>
    sql<{ readonly project_key: string }>`SELECT DISTINCT project_key FROM ${summaries} WHERE data <> '' ORDER BY project_key`.pipe(
      Effect.map((rows) => rows.map((row) => row.project_key)),
      Effect.mapError(fail("listSessions", "every project"))
    )

  // A query as a condition on a row: exact for names (SQLite's GLOB, PostgreSQL's LIKE, both case-sensitive),
  // a superset for paths (see `ToolCalls.toGlob`).
  const matching = (query: SessionStore.ToolCallQuery): Statement.Fragment => {
    switch (query._tag) {
      case "Tool":
        return glob(sql`tool`, query.pattern, "name")
      case "Outcome":
        return query.outcome === "denied" ? sql`outcome = 'denied'` : sql`outcome IN ('error', 'denied')`
      case "Input":
        return glob(sql`${sql(query.on)}`, query.pattern, query.on === "path" ? "path" : "name")
      case "And":
      case "Or":
        return query.queries.length === 0
          ? sql.literal(query._tag === "And" ? "1 = 1" : "1 = 0")
          : sql.join(` ${query._tag.toUpperCase()} `, true)(query.queries.map(matching))
    }
  }
  const glob = (column: Statement.Fragment, pattern: string, kind: "name" | "path") =>
    sql.onDialectOrElse({
      sqlite: () => sql`(${column} GLOB ${ToolCalls.toGlob(pattern, kind)})`,
      orElse: () => sql`(${column} LIKE ${ToolCalls.toLike(pattern, kind)} ESCAPE '\\')`
    })

  const toolCallSessions = (query: SessionStore.ToolCallQuery, projectKey?: string) =>
    sql<{ readonly project_key: string; readonly session_id: string }>`
      SELECT DISTINCT project_key, session_id FROM ${toolCalls}
      WHERE ${projectKey === undefined ? sql`1 = 1` : sql`project_key = ${projectKey}`} AND ${matching(query)}`.pipe(
      Effect.map((rows) => rows.map((row) => ({ projectKey: row.project_key, sessionId: row.session_id }))),
      Effect.mapError(fail("listSessions", projectKey ?? "every project"))
    )

  // Sessions appended before the index existed are indexed here, once (a merge: an append that indexes a
  // session meanwhile changes nothing).
  if (!indexed) {
    const sessions = yield* sql<{ readonly project_key: string; readonly session_id: string; readonly mtime: number | string }>`
      SELECT project_key, session_id, MAX(written_at) AS mtime FROM ${table} WHERE subpath = '' GROUP BY project_key, session_id`
    for (const row of sessions) {
      const key = { projectKey: row.project_key, sessionId: row.session_id }
      const entries = yield* load(key)
      yield* index(key, Option.getOrElse(entries, (): ReadonlyArray<SessionStore.Entry> => []), Number(row.mtime))
    }
  }

  // Sessions appended before the summaries table existed get their summary here, once.
  const unsummarized = yield* sql<{ readonly project_key: string; readonly session_id: string; readonly mtime: number | string }>`
    SELECT e.project_key, e.session_id, MAX(e.written_at) AS mtime FROM ${table} e
    WHERE e.subpath = '' AND NOT EXISTS (
      SELECT 1 FROM ${summaries} s WHERE s.project_key = e.project_key AND s.session_id = e.session_id
    )
    GROUP BY e.project_key, e.session_id`
  for (const row of unsummarized) {
    const entries = yield* load({ projectKey: row.project_key, sessionId: row.session_id })
    const data = SessionStore.foldSummary(undefined, Option.getOrElse(entries, (): ReadonlyArray<SessionStore.Entry> => []))
    yield* sql`INSERT INTO ${summaries} ${
      sql.insert({ project_key: row.project_key, session_id: row.session_id, mtime: Number(row.mtime), data: JSON.stringify(data) })
    } ON CONFLICT DO NOTHING`
  }

  const acquire = (lease: string) => {
    const now = Date.now()
    return sql<{ readonly token: number | string }>`INSERT INTO ${leases} (lease, token, acquired_at) VALUES (${lease}, 1, ${now})
      ON CONFLICT (lease) DO UPDATE SET token = ${leases}.token + 1, acquired_at = ${now} RETURNING token`.pipe(
      Effect.map(([row]): SessionStore.Fence => ({ lease, token: Number(row!.token) })),
      Effect.mapError(fail("lease", lease))
    )
  }
  const current = (lease: string) =>
    sql<{ readonly token: number | string }>`SELECT token FROM ${leases} WHERE lease = ${lease}`.pipe(
      Effect.map(([row]) => Number(row?.token ?? 0)),
      Effect.mapError(fail("lease", lease))
    )

  return Keys.validating({
    append,
    load,
    listSessions,
    listSessionSummaries,
    listSubkeys,
    delete: remove,
    findProjects,
    leases: { acquire, current },
    listProjects,
    toolCalls: { sessions: toolCallSessions }
  })
})

/**
 * {@link SessionStore.SessionStore} over the `SqlClient` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore, make(options))

/**
 * The store in an SQLite file (created when missing) through Node's built-in `node:sqlite`: the embedded
 * SQL default, no server and no native build. The file is closed with the layer; one that cannot be opened
 * fails the layer with `Unavailable`.
 *
 * @example
 * ```ts
 * import { SqlSessionStore } from "effect-claude-code/store"
 * const StoreLive = SqlSessionStore.layerSqlite({ filename: "sessions.db" })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: Options & { readonly filename: string }
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError> =>
  Layer.effect(
    SessionStore.SessionStore,
    Effect.gen(function*() {
      const client = yield* Layer.build(Sqlite.layer(options.filename)).pipe(Effect.mapError((cause) =>
        new SessionStore.SessionStoreError({ reason: new SessionStore.Unavailable({ store: `SQLite ${options.filename}`, cause }) })
      ))
      return yield* Effect.provide(make(options), client)
    })
  )
