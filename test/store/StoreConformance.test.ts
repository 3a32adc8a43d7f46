/**
 * The exported store conformance kit over the library's own stores: memory, a directory, SQLite and
 * PostgreSQL (a real server the test kit starts; a test fails when it cannot, never skips).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as StoreConformance from "../../src/testing/StoreConformance.ts"
import * as Postgres from "../support/Postgres.ts"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"

// A temporary directory for the suite, removed with its layer.
const tempDir = Effect.orDie(FileSystem.FileSystem.use((fs) => fs.makeTempDirectoryScoped({ prefix: "conformance-" })))

StoreConformance.suite(layer, "memory", MemorySessionStore.layer)

StoreConformance.suite(
  layer,
  "directory",
  Layer.unwrap(Effect.map(tempDir, DirectorySessionStore.layer)).pipe(Layer.provide(NodeServices.layer))
)

StoreConformance.suite(
  layer,
  "SQLite",
  Layer.unwrap(Effect.map(tempDir, (dir) => SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))).pipe(
    Layer.provide(NodeServices.layer)
  )
)

StoreConformance.suite(
  layer,
  "PostgreSQL",
  Layer.unwrap(Effect.map(Postgres.start, ({ database, host, port, username }) =>
    SqlSessionStore.layer().pipe(Layer.provide(PgClient.layer({ host, port, username, database })))
  )).pipe(Layer.provide(NodeServices.layer)),
  { timeout: 120_000 }
)

describe("StoreConformance", () => {
  // Memory stores that each break a clause: the kit must fail the check of that clause.
  const broken: ReadonlyArray<readonly [string, (s: SessionStore.Shape) => SessionStore.Shape]> = [
    ["append is idempotent", (s) => ({ ...s, append: (key, entries) => s.append(key, entries.map(({ uuid: _, ...e }) => e)) })],
    ["findProjects", (s) => ({ ...s, findProjects: () => Effect.succeed([]) })],
    ["delete removes", (s) => ({ ...s, delete: () => Effect.void })],
    ["leases", (s) => ({ ...s, append: (key, entries) => s.append(key, entries) })]
  ]
  for (const [clause, breakIt] of broken) {
    it.effect(`fails a store that breaks "${clause}"`, () =>
      Effect.gen(function*() {
        const store = breakIt(MemorySessionStore.make())
        const failed: Array<string> = []
        for (const c of StoreConformance.cases) {
          const exit = yield* Effect.exit(Effect.provideService(c.run, SessionStore.SessionStore, store))
          if (Exit.isFailure(exit)) failed.push(c.name)
        }
        assert.isTrue(failed.some((name) => name.startsWith(clause)), `failed: ${failed.join("; ")}`)
      }))
  }
})
