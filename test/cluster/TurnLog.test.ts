/**
 * The turn log in memory and in SQL (SQLite): attempts, stored answers and prompt digests.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as Sqlite from "../../src/internal/sqlite.ts"
import * as Message from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { fixtureFiles } from "../support/Corpus.ts"

// A real turn's messages, from a fixture.
const messages = Decode.decodeAll(fs.readFileSync(fixtureFiles[0])).flatMap((record) =>
  record instanceof Error ? [] : [record.message]
)

const logs: ReadonlyArray<readonly [string, () => Layer.Layer<TurnLog.TurnLog, unknown>]> = [
  ["memory", () => TurnLog.layerMemory],
  ["SQLite", () =>
    Layer.unwrap(
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        ),
        (dir) => TurnLog.layerSql().pipe(Layer.provide(Sqlite.layer(path.join(dir, "log.db"))))
      )
    )]
]

describe("TurnLog", () => {
  for (const [name, layer] of logs) {
    it.effect(`${name}: attempts, the stored answer, and another prompt under a known id`, () =>
      Effect.gen(function*() {
        assert.isAbove(messages.length, 0)
        const log = yield* TurnLog.TurnLog
        assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 1 })
        assert.deepStrictEqual(yield* log.begin("e", "t1", "hello!"), { _tag: "Conflict" })
        assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 2 })
        yield* log.finish("e", "t1", messages)
        const done = yield* log.begin("e", "t1", "hello")
        assert.strictEqual(done._tag, "Done")
        assert.deepStrictEqual(done._tag === "Done" ? done.messages.map(Message.encodeMessage) : [], messages.map(Message.encodeMessage))
        assert.deepStrictEqual(yield* log.begin("e", "t1", "goodbye"), { _tag: "Conflict" })
        // The same turn id on another entity is another turn.
        assert.deepStrictEqual(yield* log.begin("f", "t1", "goodbye"), { _tag: "Start", attempt: 1 })
      }).pipe(Effect.provide(layer())))
  }
})

describe("TurnLog in SQL", () => {
  it.effect("a table made before prompt digests gets the column; its turns are still answered", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-old-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const old = Sqlite.layer(path.join(dir, "log.db"))
      // The table as the log made it before turns kept a digest of their prompt, with one finished turn.
      const json = JSON.stringify(messages.map(Message.encodeMessage))
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE claude_turns (entity_id TEXT NOT NULL, turn_id TEXT NOT NULL, attempts INTEGER NOT NULL,
          messages TEXT, PRIMARY KEY (entity_id, turn_id))`
        yield* sql`INSERT INTO claude_turns (entity_id, turn_id, attempts, messages) VALUES ('e', 't1', 1, ${json})`
      }).pipe(Effect.provide(old), Effect.orDie)
      yield* Effect.gen(function*() {
        const log = yield* TurnLog.TurnLog
        const done = yield* log.begin("e", "t1", "hello")
        assert.strictEqual(done._tag, "Done")
        assert.deepStrictEqual(yield* log.begin("e", "t2", "next"), { _tag: "Start", attempt: 1 })
        assert.deepStrictEqual(yield* log.begin("e", "t2", "other"), { _tag: "Conflict" })
      }).pipe(Effect.provide(TurnLog.layerSql().pipe(Layer.provide(old))))
    }).pipe(Effect.scoped))
})
