/**
 * `view --store` and `stats --store`: the sessions of a store (`sqlite:FILE`, `postgres://...`, or the directory
 * of a `DirectorySessionStore`; every project's, or one's) written out as transcripts, one file per session, in a temporary config
 * directory, which `view` and `stats` then read as any directory of transcripts; each file is named by its
 * session (`PROJECT_KEY/SESSION_ID`). Loaded only when `--store` is given, so that `view` and `stats` start
 * without the SQL clients.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Ast from "../filter/Ast.ts"
import * as DirectorySessionStore from "../store/DirectorySessionStore.ts"
import * as SessionStore from "../store/SessionStore.ts"
import * as SessionTransfer from "../store/SessionTransfer.ts"
import * as SqlSessionStore from "../store/SqlSessionStore.ts"
import * as StoredSessions from "../store/StoredSessions.ts"
import * as CliFailure from "./CliFailure.ts"

/**
 * The sessions of a store as transcript files: the directory holding them, and the name of each file's session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Materialized {
  readonly dir: string
  readonly nameOf: (file: string) => string
}

// The store a `--store` value names, open for the scope.
const open = (spec: string): Effect.Effect<SessionStore.Shape, SessionStore.SessionStoreError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  spec.startsWith("sqlite:")
    ? Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename: spec.slice("sqlite:".length) })), Context.get(SessionStore.SessionStore))
    : /^postgres(ql)?:\/\//.test(spec)
    ? Effect.gen(function*() {
      const PgClient = yield* Effect.promise(() => import("@effect/sql-pg/PgClient"))
      const client = yield* Layer.build(PgClient.layer({ url: Redacted.make(spec) })).pipe(
        Effect.mapError((cause) =>
          new SessionStore.SessionStoreError({ reason: new SessionStore.Unavailable({ store: "PostgreSQL", cause }) })
        )
      )
      return yield* Effect.provide(SqlSessionStore.make(), client)
    })
    : DirectorySessionStore.make(spec)

/**
 * Writes the sessions of the store `spec` names (of the project `projectKey`, else of every project) into a
 * temporary directory that lives for the scope. With `filter` (what `view --filter` shows), only the sessions
 * that can hold what it selects: the store's tool-call index (SQLite, PostgreSQL) leaves out those without a
 * call it can select, and the filter then reads the others as files. A store that cannot be opened or read, or
 * holds no session there, is `BadInput`, naming it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const materialize = (
  spec: string,
  projectKey: string | undefined,
  filter?: Ast.Ast | undefined
): Effect.Effect<Materialized, CliFailure.CliFailure, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const store = yield* open(spec)
    const sessions = yield* StoredSessions.make(store)
    const configDir = yield* fs.makeTempDirectoryScoped({ prefix: "ecc-store-" })
    const projects = path.join(configDir, "projects")
    const every = yield* sessions.selectSessions(Ast.flag("All"), { projectKey })
    if (every.length === 0) {
      return yield* CliFailure.make("BadInput", `--store ${redact(spec)}: no session in ${projectKey === undefined ? "the store" : `project ${projectKey}`}`)
    }
    const infos = filter === undefined ? every : yield* sessions.selectSessions(filter, { projectKey })
    for (const info of infos) {
      const key = { projectKey: info.projectKey, sessionId: info.sessionId }
      yield* SessionTransfer.materialize(store, key, { configDir, projectKey: info.projectKey })
    }
    yield* fs.makeDirectory(projects, { recursive: true })
    return { dir: projects, nameOf: (file: string) => path.relative(projects, file).replace(/\.jsonl$/, "") }
  }).pipe(Effect.mapError((cause) =>
    CliFailure.isCliFailure(cause) ? cause : CliFailure.make("BadInput", `--store ${redact(spec)}: ${cause.message}`, cause)
  ))

// A PostgreSQL URL may carry a password: not printed.
const redact = (spec: string): string => spec.replace(/\/\/[^@/]*@/, "//***@")
