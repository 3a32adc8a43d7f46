/**
 * The fleet example against the real CLI and a scripted model: agent session entities on the test cluster.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import * as fs from "node:fs"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cluster } from "../src/cluster/index.ts"
import { Budget, CliSlots } from "../src/governance/index.ts"
import { Process } from "../src/process/index.ts"
import { Script, Scripted, ScriptedServer } from "../src/testing/index.ts"
import { fleet, runJob, service } from "./fleet.ts"

// The CLIs this process runs, from the process table: its children that are not a guard's `/bin/sh` watcher.
const liveClis = () =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return Number(ppid) === process.pid && state !== "Z" &&
        fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== "/bin/sh"
    } catch {
      return false
    }
  }).length

// Each job's model tries to delete the build, then answers. The answer is slow (about 3 s) so that the first
// two jobs' turns overlap: a job whose CLI starts after another job's turn was charged starts with that spend,
// and a CLI under load may take a second or more longer to start than the one beside it.
const script = Script.make([
  Script.turn(Script.toolUse("Bash", { command: "rm -rf build" }), { eventDelay: "20 millis" }),
  Script.turn("Triaged.", { eventDelay: "500 millis" })
])

// The fleet's entities on the test cluster, the scripted model behind their CLIs, two CLI slots, $0.002 for acme.
const provideFleet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(service.pipe(Layer.provideMerge(Cluster.layerTest), Layer.provideMerge(Scripted.layerWith(script)))),
    Effect.provide(Layer.provideMerge(CliSlots.layer({ max: 2, maxWait: "1 minute" }), Process.nodeSpawner)),
    Effect.provide(Layer.merge(NodeServices.layer, Budget.layerMemory({ limits: { acme: { usd: 0.002 } } })))
  )

describe("fleet", () => {
  it.live("two CLIs at most, every call by the policy file, the jobs past the budget refused", () =>
    Effect.gen(function*() {
      let most = 0
      const sampler = yield* Effect.forkChild(Effect.forever(
        Effect.andThen(Effect.sync(() => (most = Math.max(most, liveClis()))), Effect.sleep("20 millis"))
      ))
      const lines = yield* fleet
      yield* Fiber.interrupt(sampler)
      assert.strictEqual(most, 2)
      // Jobs take CLIs in the order they reach one: the first two start with nothing spent and are answered; the
      // last ones to get a CLI start over the budget and are refused; the ones between are answered or stopped.
      const answered = lines.filter((line) => line.answer === "Triaged." && line.budget === undefined)
      const stopped = lines.filter((line) => line.budget?.endsWith("the run was stopped"))
      const refused = lines.filter((line) => line.budget?.endsWith("the run was refused"))
      assert.isAtLeast(answered.length, 2)
      assert.isAtLeast(refused.length, 1)
      assert.strictEqual(answered.length + stopped.length + refused.length, 5)
      for (const line of refused) {
        assert.match(line.budget ?? "", /^Budget acme: \$0\.00\d+ spent of \$0\.0020; the run was refused$/)
        assert.strictEqual(line.costUsd, 0)
      }
      // A stopped job's turn was answered before its interrupt: its line has that result's cost.
      for (const line of stopped) assert.isAbove(line.costUsd, 0)
      // The policy file's `deny tool:Bash & command:"rm *"` refused each answered job's call.
      for (const line of answered) assert.deepStrictEqual(line.refusedTools, ["Bash"])
      const server = yield* ScriptedServer.ScriptedServer
      const requests = ScriptedServer.turnRequests(yield* server.requests)
      // Its reason reached the model: each answered job's second request carries it (the last request overall
      // may be another job's first, made before its call was refused).
      const withReason = requests.filter((r) => JSON.stringify(r.body).includes("Nothing is deleted here."))
      assert.isAtLeast(withReason.length, answered.length)
      // Refused before the model saw them: no request carries their prompt.
      for (const line of refused) assert.notInclude(JSON.stringify(requests.map((r) => r.body)), `Triage ${line.entityId}"`)
      // Charged what the CLI's results say (one turn per session: its total_cost_usd).
      const spent = yield* Effect.flatMap(Budget.Budget, (budget) => budget.spent("acme"))
      assert.closeTo(spent.usd, lines.reduce((sum, line) => sum + line.costUsd, 0), 1e-9)
      assert.isAbove(spent.usd, 0.002)
    }).pipe(provideFleet), { timeout: 180_000 })

  it.live("a job the budget stops reports what its CLI charged", () =>
    Effect.gen(function*() {
      const budget = yield* Budget.Budget
      // Nearly spent: the job starts, its first message's estimate crosses the limit, its CLI is interrupted.
      yield* budget.charge("acme", { usd: 0.0019, tokens: 0 })
      const line = yield* runJob("acme/issue-1")
      assert.match(line.budget ?? "", /^Budget acme: \$0\.00\d+ spent of \$0\.0020; the run was stopped$/)
      // The interrupted turn's result is the job's line's: the model's answer to its first request cost something.
      assert.isAbove(line.costUsd, 0)
      const spent = yield* budget.spent("acme")
      assert.closeTo(spent.usd - 0.0019, line.costUsd, 1e-9)
    }).pipe(provideFleet), { timeout: 180_000 })
})
