import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import * as Budget from "../../src/governance/Budget.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { setup, turnBodies } from "../session/support/Real.ts"

// One scripted turn costs $0.0008 at the CLI's own prices: the limit lets three turns start, not a fourth.
const limit = 0.002

describe("Budget (real CLI)", () => {
  it.live("two sessions share a budget: the turn past it is refused, the ledger holds the CLIs' costs", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "budget-cli-"))
    const filename = path.join(dir, "ledger.db")
    return Effect.gen(function*() {
      const { server, base } = yield* setup([Script.turn("a1"), Script.turn("b1"), Script.turn("a2"), Script.turn("b2")])
      const a = yield* Session.make(base)
      const b = yield* Session.make(base)
      const turn = (session: Session.Session, prompt: string) =>
        Stream.runCollect(Budget.guard(session.turn(prompt), "team"))
      const results = []
      for (const [session, prompt] of [[a, "one"], [b, "two"], [a, "three"]] as const) {
        const out = yield* turn(session, prompt)
        results.push(out.at(-1)!)
      }
      const refused = yield* Effect.exit(turn(b, "four"))
      assert.isTrue(Exit.isFailure(refused))
      const failure = Exit.isFailure(refused) ? refused.cause.reasons[0] : undefined
      const reason = failure?._tag === "Fail" ? (failure.error as Budget.BudgetError).reason : undefined
      assert.strictEqual(reason?._tag, "Exceeded")
      // The refused prompt never reached the model: three conversation requests, the fourth prompt in none.
      const bodies = yield* turnBodies(server)
      assert.strictEqual(bodies.length, 3)
      assert.notInclude(JSON.stringify(bodies), "four")
      // The CLIs' figures: each session's last total_cost_usd, counted from the results, not the ledger.
      const totals = new Map<string, number>()
      for (const r of results) {
        assert.isTrue(r._tag === "ResultSuccess")
        if (r._tag === "ResultSuccess") totals.set(r.session_id, r.total_cost_usd)
      }
      assert.strictEqual(totals.size, 2)
      const cliCost = [...totals.values()].reduce((s, c) => s + c, 0)
      assert.isAbove(cliCost, limit)
      // Read from the ledger's own table.
      const db = new DatabaseSync(filename, { readOnly: true })
      try {
        const rows = db.prepare("SELECT budget_key, usd FROM claude_budget_spend").all() as Array<{ budget_key: string; usd: number }>
        assert.strictEqual(rows.length, 1)
        assert.strictEqual(rows[0].budget_key, "team")
        assert.closeTo(rows[0].usd, cliCost, 1e-9)
      } finally {
        db.close()
      }
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.merge(NodeServices.layer, Budget.layerSqlite({ filename, limits: { team: { usd: limit } }, onCross: "finish" }))),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  }, 120_000)

  it.live("a turn crossing the limit is interrupted after that message and charged its result", () => {
    return Effect.gen(function*() {
      const { base, server } = yield* setup([
        Script.turn(Script.toolUse("Bash", { command: "while [ ! -e go ]; do sleep 0.05; done; echo went" })),
        Script.turn("never")
      ])
      const session = yield* Session.make({ ...base, allowedTools: ["Bash"] })
      const out: Array<Session.Message> = []
      const exit = yield* Effect.exit(Stream.runForEach(
        Budget.guard(session.turn("run it"), "job", { onCrossed: Effect.ignore(session.interrupt) }),
        (m) => Effect.sync(() => out.push(m))
      ))
      assert.isTrue(Exit.isFailure(exit))
      // The turn ended by the interrupt: its result came, the tool never finished, the model was asked once.
      const result = out.at(-1)
      assert.isTrue(result?._tag === "ResultError" || result?._tag === "ResultSuccess")
      assert.notInclude(JSON.stringify(out.map((m) => m._tag === "UserMessage" ? m.toolResults : [])), "went")
      assert.strictEqual((yield* turnBodies(server)).length, 1)
      const spent = yield* (yield* Budget.Budget).spent("job")
      assert.isAbove(spent.usd, 0)
    }).pipe(
      Effect.provide(Layer.merge(NodeServices.layer, Budget.layerMemory({ limits: { job: { tokens: 1 } } })))
    )
  }, 120_000)
})
