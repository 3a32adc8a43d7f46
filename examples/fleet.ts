/**
 * Governance for a fleet: every job of a tenant runs under the tenant's budget (the CLI's own cost figures,
 * in a ledger all runners share), and no more than two CLIs run at once in this process (each holds about
 * 190 MB); the others wait their turn, for a minute at most. A job that would start over the budget is
 * refused before the model sees its prompt; one whose spend crosses it is interrupted after that message,
 * and charged what the CLI says its turn cost.
 */
import { Effect, Layer, Stream } from "effect"
import { ClaudeCli } from "../src/index.ts"
import { Budget, CliSlots } from "../src/governance/index.ts"
import { Live } from "../src/layers/index.ts"

export const jobs = ["Triage issue 1", "Triage issue 2", "Triage issue 3", "Triage issue 4", "Triage issue 5"]

// Each job: a session of its own, one turn under the tenant's budget. What a job did, and what the CLI says it cost.
export const runJob = (job: string) =>
  Effect.scoped(Effect.gen(function*() {
    const session = yield* ClaudeCli.session({ allowedTools: ["Read"] })
    const messages = yield* session.turn(job).pipe(
      Budget.guard("acme", { onCrossed: Effect.ignore(session.interrupt) }),
      Stream.catchTag("BudgetError", (error) => Stream.succeed(error)),
      Stream.runCollect
    )
    const result = messages.findLast((m) => m._tag === "ResultSuccess" || m._tag === "ResultError")
    const refusal = messages.findLast((m) => m._tag === "BudgetError")
    return {
      job,
      answer: result?._tag === "ResultSuccess" ? result.result : undefined,
      costUsd: result?._tag === "ResultSuccess" || result?._tag === "ResultError" ? result.total_cost_usd : 0,
      budget: refusal?._tag === "BudgetError" ? refusal.message : undefined
    }
  }))

export const fleet = Effect.forEach(jobs, runJob, { concurrency: "unbounded" })

// $0.002 for the tenant, kept in SQLite (on PostgreSQL for many machines: `Budget.layerSql` over its client).
export const budget = Budget.layerSqlite({ filename: "budget.db", limits: { acme: { usd: 0.002 } } })

// The cap wraps the spawner the CLI layer starts its processes with.
export const capped = CliSlots.layer({ max: 2, maxWait: "1 minute" }).pipe(Layer.provideMerge(Live.nodeSpawner))

export const program = fleet.pipe(Effect.provide(Live.layerWith({})), Effect.provide(capped), Effect.provide(budget))
