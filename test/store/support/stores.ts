/**
 * Each kind of store the library has, made fresh in the caller's scope: memory, a directory, SQLite and
 * PostgreSQL (a real server the test kit starts; a test fails when it cannot).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import * as path from "node:path"
import * as SessionStore from "../../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../../src/store/SqlSessionStore.ts"
import * as Postgres from "../../support/Postgres.ts"
import * as DirectorySessionStore from "../../../src/store/DirectorySessionStore.ts"
import * as MemorySessionStore from "../../../src/store/MemorySessionStore.ts"

export const stores: ReadonlyArray<{
  readonly name: string
  readonly make: Effect.Effect<SessionStore.Shape, SessionStore.SessionStoreError, FileSystem.FileSystem | Scope.Scope | Path.Path>
}> = [
  { name: "memory", make: Effect.provide(Effect.service(SessionStore.SessionStore), MemorySessionStore.layer) },
  {
    name: "directory",
    make: Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-" }))
      // Made in the test's scope: what it holds is let go when the test ends.
      return yield* DirectorySessionStore.make(root)
    })
  },
  {
    name: "SQLite",
    make: Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-" }))
      // Built in the test's scope: the database stays open until the test ends.
      const context = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))
      return Context.get(context, SessionStore.SessionStore)
    })
  },
  {
    name: "PostgreSQL",
    make: Effect.gen(function*() {
      const server = yield* Postgres.start
      const { database, host, port, username } = server
      const context = yield* Layer.build(PgClient.layer({ host, port, username, database })).pipe(Effect.orDie)
      return yield* SqlSessionStore.make().pipe(Effect.provide(context))
    })
  }
]

