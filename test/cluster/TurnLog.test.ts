/**
 * The turn log in memory and in SQL (SQLite, PostgreSQL): attempts, stored answers and prompt digests.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Duration from "effect/Duration"
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
import * as Postgres from "../support/Postgres.ts"
import { waitUntil } from "../session/support/Real.ts"

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

// A holder (token 1) that lost the entity to another (token 2) and writes on when it wakes: refused, and the
// log keeps the new holder's record.
const fencedWrites = Effect.gen(function*() {
  const log = yield* TurnLog.TurnLog
  const [stale, holder] = [{ lease: "AgentSession/e", token: 1 }, { lease: "AgentSession/e", token: 2 }]
  const answer = messages.slice(0, 2)
  yield* log.claim("e", stale)
  assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 1 })
  yield* log.setSessionId("e", "s1", stale)
  yield* log.claim("e", holder)
  assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 2 })
  yield* log.setSessionId("e", "s1", holder)
  yield* log.progress("e", "t1", answer, holder)
  yield* log.setResumeAt("e", "a2", holder)
  yield* log.finish("e", "t1", answer, holder)
  const refusals = yield* Effect.forEach([
    log.claim("e", stale),
    log.setSessionId("e", "s-stale", stale),
    log.setResumeAt("e", "a-stale", stale),
    log.progress("e", "t1", messages, stale),
    log.finish("e", "t1", messages, stale)
  ], (write) => Effect.flip(write))
  assert.deepStrictEqual(
    refusals.map(({ reason }) => reason._tag === "Fenced" ? [reason.operation, reason.key, reason.token, reason.current] : reason._tag),
    Array.from({ length: 5 }, () => ["turnLog", "e", 1, 2])
  )
  const done = yield* log.begin("e", "t1", "hello")
  assert.deepStrictEqual(done._tag === "Done" ? done.messages.map(Message.encodeMessage) : done, answer.map(Message.encodeMessage))
  assert.deepStrictEqual([yield* log.sessionId("e"), yield* log.resumeAt("e")], ["s1", "a2"])
  // Another entity's claims are its own; a write without a fence is not checked.
  yield* log.claim("f", stale)
  yield* log.setResumeAt("e", "a3")
  assert.strictEqual(yield* log.resumeAt("e"), "a3")
})

// What every log does alike, in memory, in SQLite and in PostgreSQL.
const alike: ReadonlyArray<readonly [string, Effect.Effect<void, unknown, TurnLog.TurnLog>]> = [
  ["a holder's writes with a stale token are refused", fencedWrites],
  ["attempts, the stored answer, and another prompt under a known id", Effect.gen(function*() {
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
  })],
  ["a running turn's progress goes to its next attempt, which resumes at the last answer", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    const progress = messages.slice(0, 2)
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 1 })
    yield* log.progress("e", "t1", progress)
    const retry = yield* log.begin("e", "t1", "hello")
    assert.deepStrictEqual(
      retry._tag === "Start" ? [retry.attempt, retry.interrupted?.map(Message.encodeMessage)] : [],
      [2, progress.map(Message.encodeMessage)]
    )
    // Read again (as a retry does once it claimed the log), it is what the last write kept.
    yield* log.progress("e", "t1", messages.slice(0, 3))
    assert.deepStrictEqual((yield* log.progressOf("e", "t1"))?.map(Message.encodeMessage), messages.slice(0, 3).map(Message.encodeMessage))
    // Another turn has none.
    assert.deepStrictEqual(yield* log.begin("e", "t2", "hello"), { _tag: "Start", attempt: 1 })
    assert.strictEqual(yield* log.progressOf("e", "t2"), undefined)
    // Where a retry resumes: the last answer of the entity's last finished turn.
    yield* log.setSessionId("e", "s1")
    assert.strictEqual(yield* log.resumeAt("e"), undefined)
    yield* log.setResumeAt("e", "a1")
    yield* log.setResumeAt("e", "a2")
    assert.deepStrictEqual([yield* log.resumeAt("e"), yield* log.resumeAt("f"), yield* log.sessionId("e")], ["a2", undefined, "s1"])
  })],
  ["the prompt id an attempt kept goes to the next attempt", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 1 })
    yield* log.sent("e", "t1", "p1")
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 2, promptId: "p1" })
    yield* log.sent("e", "t1", "p2")
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 3, promptId: "p2" })
    assert.deepStrictEqual(yield* log.begin("e", "t2", "hello"), { _tag: "Start", attempt: 1 })
  })],
  ["a turn started as often as allowed is refused, not counted again", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello", 2), { _tag: "Start", attempt: 1 })
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello", 2), { _tag: "Start", attempt: 2 })
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello", 2), { _tag: "Exhausted", attempts: 2 })
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello", 2), { _tag: "Exhausted", attempts: 2 })
    // Without a limit it starts again, counted from the starts it really had.
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 3 })
    assert.deepStrictEqual(yield* log.begin("e", "t1", "other", 2), { _tag: "Conflict" })
  })],
  ["a turn's end keeps its messages and the resume point in one write, refused together", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    const [stale, holder] = [{ lease: "AgentSession/e", token: 1 }, { lease: "AgentSession/e", token: 2 }]
    yield* log.claim("e", holder)
    assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 1 })
    yield* log.setSessionId("e", "s1", holder)
    const refused = yield* Effect.flip(log.finish("e", "t1", messages, stale, "a-stale"))
    assert.strictEqual(refused.reason._tag, "Fenced")
    assert.deepStrictEqual([yield* log.resumeAt("e"), yield* log.answer("e", "t1")], [undefined, undefined])
    yield* log.finish("e", "t1", messages, holder, "a1")
    assert.strictEqual(yield* log.resumeAt("e"), "a1")
    assert.strictEqual((yield* log.answer("e", "t1"))?.length, messages.length)
  })],
  ["the limit counts failed and unended attempts apart, and never released ones", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    const limit = { failed: 2, unended: 3 }
    const begin = (turnId: string) => log.begin("e", turnId, "hello", limit)
    // Cut from outside five times (the runner alive to tell): started a sixth time.
    for (let attempt = 1; attempt <= 5; attempt++) {
      assert.deepStrictEqual(yield* begin("t1"), { _tag: "Start", attempt })
      yield* log.ended("e", "t1", attempt, "released")
    }
    assert.deepStrictEqual(yield* begin("t1"), { _tag: "Start", attempt: 6 })
    // Failed twice: refused, whatever the releases between.
    assert.deepStrictEqual(yield* begin("t2"), { _tag: "Start", attempt: 1 })
    yield* log.ended("e", "t2", 1, "failed")
    assert.deepStrictEqual(yield* begin("t2"), { _tag: "Start", attempt: 2 })
    yield* log.ended("e", "t2", 2, "released")
    assert.deepStrictEqual(yield* begin("t2"), { _tag: "Start", attempt: 3 })
    yield* log.ended("e", "t2", 3, "failed")
    assert.deepStrictEqual(yield* begin("t2"), { _tag: "Exhausted", attempts: 3 })
    // Ended unknown (its runner died) three times: refused. A late word on an attempt before the last changes
    // nothing, nor a second word on the last.
    for (let attempt = 1; attempt <= 2; attempt++) assert.deepStrictEqual(yield* begin("t3"), { _tag: "Start", attempt })
    yield* log.ended("e", "t3", 1, "released")
    yield* log.ended("e", "t3", 2, "released")
    yield* log.ended("e", "t3", 2, "failed")
    for (let attempt = 3; attempt <= 4; attempt++) assert.deepStrictEqual(yield* begin("t3"), { _tag: "Start", attempt })
    assert.deepStrictEqual(yield* begin("t3"), { _tag: "Exhausted", attempts: 4 })
    // A word on a finished turn changes nothing either.
    yield* log.finish("e", "t1", messages)
    yield* log.ended("e", "t1", 6, "failed")
    assert.strictEqual((yield* begin("t1"))._tag, "Done")
  })],
  ["an entity's settings", Effect.gen(function*() {
    const log = yield* TurnLog.TurnLog
    assert.deepStrictEqual(yield* log.settings("e"), {})
    yield* log.setSettings("e", { model: null, permissionMode: "acceptEdits" })
    assert.deepStrictEqual(yield* log.settings("e"), { model: null, permissionMode: "acceptEdits" })
    assert.deepStrictEqual(yield* log.settings("f"), {})
  })]
]

describe("TurnLog", () => {
  for (const [name, layer] of logs) {
    for (const [title, test] of alike) it.effect(`${name}: ${title}`, () => test.pipe(Effect.provide(layer())))
  }
})

// One server for these (a begin is one statement there, issue 23): each test keeps its log under a prefix of its own.
const postgres = Layer.unwrap(Effect.map(Postgres.start, ({ database, host, port, username }) =>
  PgClient.layer({ host, port, username, database }))).pipe(Layer.provide(NodeServices.layer))

layer(postgres, { timeout: 120_000 })("TurnLog in PostgreSQL, as in memory and SQLite", (it) => {
  alike.forEach(([title, test], i) => it.effect(title, () => test.pipe(Effect.provide(TurnLog.layerSql({ prefix: `alike${i}` })))))

  // A begin alone commits without waiting for the disk; a caller's transaction it runs in commits as it would.
  it.effect("a begin in a caller's transaction leaves its commit synchronous", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const log = yield* TurnLog.TurnLog
      const [inside] = yield* sql.withTransaction(Effect.andThen(
        log.begin("e", "t1", "hello"),
        Effect.orDie(sql<{ readonly mode: string }>`SELECT current_setting('synchronous_commit') AS mode`)
      ))
      assert.strictEqual(inside?.mode, "on")
      assert.deepStrictEqual(yield* log.begin("e", "t1", "hello"), { _tag: "Start", attempt: 2 })
    }).pipe(Effect.provide(TurnLog.layerSql({ prefix: "outer" }))))
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
        // Its turns keep their prompt's id too (the column is added).
        yield* log.sent("e", "t2", "p1")
        assert.deepStrictEqual(yield* log.begin("e", "t2", "next"), { _tag: "Start", attempt: 2, promptId: "p1" })
      }).pipe(Effect.provide(TurnLog.layerSql().pipe(Layer.provide(old))))
    }))
})

describe("TurnLog in SQL: retention", () => {
  const withLog = (retention: TurnLog.Retention) =>
    Layer.unwrap(Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "turnlog-retention-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      ),
      (dir) => TurnLog.layerSql({ retention }).pipe(Layer.provideMerge(Sqlite.layer(path.join(dir, "log.db"))))
    ))
  const turnIds = Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      Effect.orDie(sql<{ readonly entity_id: string; readonly turn_id: string }>`SELECT entity_id, turn_id FROM claude_turns`),
      (rows) => rows.map((row) => `${row.entity_id}/${row.turn_id}`).sort()
    ))
  const finish = (entityId: string, turnId: string) =>
    Effect.flatMap(TurnLog.TurnLog, (log) =>
      Effect.andThen(log.begin(entityId, turnId, turnId), log.finish(entityId, turnId, messages)))

  it.effect("each entity keeps its newest turns", () =>
    Effect.gen(function*() {
      for (const turnId of ["t1", "t2", "t3", "t4"]) yield* finish("e", turnId)
      yield* finish("f", "t1")
      assert.deepStrictEqual(yield* turnIds, ["e/t3", "e/t4", "f/t1"])
      // A turn no longer kept is a new turn.
      const log = yield* TurnLog.TurnLog
      assert.deepStrictEqual(yield* log.begin("e", "t1", "t1"), { _tag: "Start", attempt: 1 })
    }).pipe(Effect.provide(withLog({ maxTurns: 2 }))))

  it.effect("turns older than the age go", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* finish("e", "old")
      yield* finish("f", "old")
      const twoHoursAgo = Date.now() - Duration.toMillis(Duration.hours(2))
      yield* Effect.orDie(sql`UPDATE claude_turns SET updated_at = ${twoHoursAgo}`)
      yield* finish("e", "new")
      assert.deepStrictEqual(yield* turnIds, ["e/new"])
    }).pipe(Effect.provide(withLog({ maxAge: "1 hour" }))))
})

describe("TurnLog in PostgreSQL", () => {
  it.live("a holder's writes with a stale token are refused", () =>
    Effect.gen(function*() {
      const { database, host, port, username } = yield* Postgres.start
      yield* fencedWrites.pipe(Effect.provide(TurnLog.layerSql().pipe(Layer.provide(PgClient.layer({ host, port, username, database })))))
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  // Two runners beginning one turn at once (the old holder's attempt and the new one's): the second begin
  // comes while the first's transaction is open, and waits for it.
  it.live("two begins of one turn at once: attempts 1 and 2, never 1 twice", () =>
    Effect.gen(function*() {
      const { database, host, port, username } = yield* Postgres.start
      const pg = PgClient.layer({ host, port, username, database })
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const log = yield* TurnLog.TurnLog
        const [begun, release] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        const first = yield* log.begin("e", "t1", "hello").pipe(
          Effect.tap(() => Effect.andThen(Deferred.succeed(begun, undefined), Deferred.await(release))),
          sql.withTransaction,
          Effect.forkChild
        )
        yield* Deferred.await(begun)
        const second = yield* Effect.forkChild(log.begin("e", "t1", "hello"))
        // The first begin's transaction holds the turn's row: the second waits on a lock for it.
        yield* waitUntil(Effect.map(
          Effect.orDie(sql<{ readonly n: number | string }>`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`),
          ([row]) => Number(row!.n) > 0
        )).pipe(Effect.timeout("60 seconds"))
        yield* Deferred.succeed(release, undefined)
        const attempts = [yield* Fiber.join(first), yield* Fiber.join(second)]
        assert.deepStrictEqual(attempts, [{ _tag: "Start", attempt: 1 }, { _tag: "Start", attempt: 2 }])
        const [row] = yield* Effect.orDie(sql<{ readonly attempts: number }>`SELECT attempts FROM claude_turns`)
        assert.strictEqual(Number(row!.attempts), 2)
      }).pipe(Effect.provide(TurnLog.layerSql().pipe(Layer.provideMerge(pg))))
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)
})
