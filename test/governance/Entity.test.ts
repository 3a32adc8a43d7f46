/**
 * One budget for sessions and an agent entity, with the real CLI on the scripted model.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as Budget from "../../src/governance/Budget.ts"
import type * as Session from "../../src/session/Session.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"

const on = (fragment: string, text: string) =>
  Script.conversation(fragment, MessagesRequest.firstUserTextIncludes(fragment), [Script.turn(text)])

// One scripted turn costs $0.0008 at the CLI's prices: $0.002 lets three turns start, not a fourth.
const env = AgentSession.layer({ budget: (entityId) => `team-of-${entityId}` }).pipe(
  Layer.provideMerge(Cluster.layerTest),
  Layer.provideMerge(Scripted.layer({
    conversations: [on("first", "One."), on("second", "Two."), on("third", "Three."), on("fourth", "Four.")],
    sideReply: "Scripted session"
  })),
  Layer.provideMerge(Budget.layerMemory({ limits: { "team-of-e1": { usd: 0.002 } }, onCross: "finish" }))
)

const resultOf = (messages: ReadonlyArray<Session.Message>) => {
  const last = messages.at(-1)
  if (last?._tag !== "ResultSuccess") throw new Error(`no success result: ${last?._tag}`)
  return last
}

describe("Budget shared by sessions and an entity (real CLI)", () => {
  it.effect("the turn past the limit is refused with OverBudget; the ledger holds the CLIs' costs", () =>
    Effect.gen(function*() {
      const cli = yield* ClaudeCli.ClaudeCli
      const sessionTurn = (prompt: string) =>
        Effect.scoped(Effect.flatMap(cli.session(), (session) => Stream.runCollect(Budget.guard(session.turn(prompt), "team-of-e1"))))
      const client = yield* AgentSession.client
      const entityTurn = (turnId: string, prompt: string) => Stream.runCollect(client("e1").Turn({ turnId, prompt }))
      const first = resultOf(yield* sessionTurn("first"))
      const second = yield* entityTurn("t1", "second")
      const third = resultOf(yield* sessionTurn("third"))
      const refused = yield* Effect.exit(entityTurn("t2", "fourth"))
      assert.isTrue(Exit.isFailure(refused))
      const failure = Exit.isFailure(refused) ? refused.cause.reasons[0] : undefined
      const error = failure?._tag === "Fail" ? failure.error as AgentSession.AgentSessionError : undefined
      assert.strictEqual(error?.reason._tag, "OverBudget")
      assert.match(error?.message ?? "", /^Budget team-of-e1: \$0\.00\d+ spent of \$0\.0020; the run was refused$/)
      // The model never saw the refused prompt.
      const asked = ScriptedServer.turnRequests(yield* (yield* ScriptedServer.ScriptedServer).requests)
      assert.deepStrictEqual(asked.map((r) => r.conversation).sort(), ["first", "second", "third"])
      // What the CLIs' results say each run cost, against the ledger.
      const entityResult = second.flatMap((e) => e._tag === "TurnMessage" ? [e.message] : []).at(-1)
      assert.strictEqual(entityResult?._tag, "ResultSuccess")
      const costs = [first.total_cost_usd, entityResult?._tag === "ResultSuccess" ? entityResult.total_cost_usd : NaN, third.total_cost_usd]
      const spent = yield* Effect.flatMap(Budget.Budget, (budget) => budget.spent("team-of-e1"))
      assert.closeTo(spent.usd, costs.reduce((a, b) => a + b, 0), 1e-9)
    }).pipe(Effect.provide(env)), 180_000)
})
