import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Budget from "../../src/governance/Budget.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import * as DecodeError from "../../src/stream/DecodeError.ts"
import * as Postgres from "../support/Postgres.ts"

const recorded = (name: string): ReadonlyArray<Message> =>
  Decode.decodeAll(fs.readFileSync(path.join(import.meta.dirname, "../../fixtures/recorded", name))).map((decoded) => {
    if (decoded instanceof DecodeError.DecodeError) throw decoded
    return decoded.message
  })

// A three-turn session the real CLI wrote; each result carries that turn's own cost.
const session = recorded("stream_json_session.jsonl")
const results = session.filter((m) => m._tag === "ResultSuccess" || m._tag === "ResultError")
const ownCosts = results.map((r) => Object.values(r.model_usage_since_last_result ?? {}).reduce((s, m) => s + m.costUSD, 0))

const run = (messages: ReadonlyArray<Message>, key: string, options?: Budget.GuardOptions) =>
  Stream.runCollect(Budget.guard(Stream.fromIterable(messages), key, options))

describe("Budget.guard", () => {
  it.effect("charges each result's own cost", () =>
    Effect.gen(function*() {
      const out = yield* run(session, "job")
      assert.strictEqual(out.length, session.length)
      const budget = yield* Budget.Budget
      const spent = yield* budget.spent("job")
      assert.strictEqual(ownCosts.length, 3)
      assert.closeTo(spent.usd, ownCosts.reduce((a, b) => a + b, 0), 1e-12)
      assert.isAbove(spent.tokens, 0)
    }).pipe(Effect.provide(Budget.layerMemory({ limits: {} }))))

  it.effect("refuses a run once the key reached its limit", () =>
    Effect.gen(function*() {
      const budget = yield* Budget.Budget
      yield* budget.charge("tenant", { usd: 0.01, tokens: 0 })
      const exit = yield* Effect.exit(run(session, "tenant"))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.strictEqual(error?._tag, "Fail")
      const reason = error?._tag === "Fail" ? (error.error as Budget.BudgetError).reason : undefined
      assert.strictEqual(reason?._tag, "Exceeded")
      assert.isFalse((reason as Budget.Exceeded).during)
      assert.match((reason as Budget.Exceeded).message, /tenant: \$0\.0100 spent of \$0\.0100; the run was refused/)
      // Refused before anything ran: nothing more charged.
      assert.strictEqual((yield* budget.spent("tenant")).usd, 0.01)
      // Another key is not bound by it.
      assert.strictEqual((yield* run(session, "other")).length, session.length)
    }).pipe(Effect.provide(Budget.layerMemory({ limits: { tenant: { usd: 0.01 } } }))))

  it.effect("stops after the message that crosses a limit, keeping it", () =>
    Effect.gen(function*() {
      const firstAssistant = session.findIndex((m) => m._tag === "AssistantMessage")
      const exit = yield* Effect.exit(Stream.runCollect(
        Budget.guard(Stream.fromIterable(session), "tight").pipe(Stream.catch((e) => Stream.succeed(e)))
      ))
      assert.isTrue(Exit.isSuccess(exit))
      const out = Exit.isSuccess(exit) ? exit.value : []
      // Every message up to the crossing one, then the error.
      assert.strictEqual(out.length, firstAssistant + 2)
      const last = out[out.length - 1] as Budget.BudgetError
      assert.strictEqual(last._tag, "BudgetError")
      assert.strictEqual(last.reason._tag, "Exceeded")
      assert.isTrue((last.reason as Budget.Exceeded).during)
      assert.strictEqual((last.reason as Budget.Exceeded).limit, "tokens")
      // No result came: the stopped run is charged its estimate.
      const spent = yield* (yield* Budget.Budget).spent("tight")
      assert.isAbove(spent.tokens, 10)
    }).pipe(Effect.provide(Budget.layerMemory({ limits: { tight: { tokens: 10 } } }))))

  it.effect("lets a crossing run finish with onCross finish, charging the CLI's figure", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* run(session, "tight")).length, session.length)
      assert.closeTo((yield* (yield* Budget.Budget).spent("tight")).usd, ownCosts.reduce((a, b) => a + b, 0), 1e-12)
      // Over its limit now: the next run is refused.
      assert.isTrue(Exit.isFailure(yield* Effect.exit(run(session, "tight"))))
    }).pipe(Effect.provide(Budget.layerMemory({ limits: { tight: { tokens: 10 } }, onCross: "finish" }))))

  it.effect("runs onCrossed and goes on to the result, then fails", () =>
    Effect.gen(function*() {
      let crossed = 0
      const oneTurn = session.slice(0, session.indexOf(results[0]) + 1)
      const out: Array<Message> = []
      const exit = yield* Effect.exit(Stream.runForEach(
        Budget.guard(Stream.fromIterable(oneTurn), "tight", { onCrossed: Effect.sync(() => crossed++) }),
        (m) => Effect.sync(() => out.push(m))
      ))
      assert.strictEqual(crossed, 1)
      assert.strictEqual(out.length, oneTurn.length)
      assert.isTrue(Exit.isFailure(exit))
      // The result was charged, not the estimate as well.
      assert.closeTo((yield* (yield* Budget.Budget).spent("tight")).usd, ownCosts[0], 1e-12)
    }).pipe(Effect.provide(Budget.layerMemory({ limits: { tight: { tokens: 10 } } }))))

  it.effect("charges the growth of total_cost_usd when a result has no own figure", () =>
    Effect.gen(function*() {
      const stripped = session.map((m) =>
        m._tag === "ResultSuccess" ? Object.assign(Object.create(Object.getPrototypeOf(m)), { ...m, model_usage_since_last_result: undefined }) as Message : m
      )
      yield* run(stripped, "old-cli")
      const total = results[results.length - 1].total_cost_usd
      assert.closeTo((yield* (yield* Budget.Budget).spent("old-cli")).usd, total, 1e-12)
    }).pipe(Effect.provide(Budget.layerMemory({ limits: {} }))))
})

// The ledger must never lose a charge when many charge one key at once, and must outlive the layer: 40
// charges, 8 at a time, through one layer, read back through another.
const chargeConcurrently = <E>(layer: () => Layer.Layer<Budget.Budget, E>) =>
  Effect.gen(function*() {
    yield* Effect.gen(function*() {
      const budget = yield* Budget.Budget
      yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) => budget.charge("fleet", { usd: 0.25, tokens: i }), {
        concurrency: 8
      })
    }).pipe(Effect.provide(layer()))
    return yield* Effect.flatMap(Budget.Budget, (b) => b.spent("fleet")).pipe(Effect.provide(layer()))
  })

describe("Budget.layerSqlite", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "budget-"))
  it.effect("adds concurrent charges exactly and keeps them", () =>
    Effect.gen(function*() {
      const spent = yield* chargeConcurrently(() => Budget.layerSqlite({ filename: path.join(dir, "budget.db"), limits: {} }))
      assert.deepStrictEqual(spent, { usd: 10, tokens: 780 })
    }))
})

describe("Budget.layerSql on PostgreSQL", () => {
  it.effect("adds concurrent charges exactly and keeps them", () =>
    Effect.gen(function*() {
      const { database, host, port, username } = yield* Postgres.start
      const pg = PgClient.layer({ host, port, username, database })
      const spent = yield* chargeConcurrently(() => Budget.layerSql({ limits: {} }).pipe(Layer.provide(pg)))
      assert.deepStrictEqual(spent, { usd: 10, tokens: 780 })
      // Counted from the table itself, not through the ledger.
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ usd: number }>`SELECT usd FROM claude_budget_spend`).pipe(
        Effect.provide(pg),
        Effect.orDie
      )
      assert.deepStrictEqual(rows.map((r) => Number(r.usd)), [10])
    }), 120_000)
})
