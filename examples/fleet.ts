/**
 * Governance for a fleet: a service of agent sessions (`AgentSession` entities, one per job, named
 * `TENANT/JOB`) where every job runs under its tenant's budget (the CLI's own cost figures, in a ledger all
 * runners share), every tool call is decided by a policy file (`examples/fleet-policy.txt`: reads and
 * `git status` allowed, `rm` denied with a reason told to the model, the rest refused), and no more than two
 * CLIs run at once in this
 * process (each holds about 190 MB); the others wait their turn, for a minute at most. A job that would start
 * over the budget is refused before the model sees its prompt (`OverBudget`); one whose spend crosses it is
 * interrupted after that message, and charged what the CLI says its turn cost.
 */
import { Effect, Layer, Stream } from "effect"
import * as path from "node:path"
import { AgentSession, Cluster } from "../src/cluster/index.ts"
import { Budget, CliSlots } from "../src/governance/index.ts"
import { Live } from "../src/layers/index.ts"
import { Process } from "../src/process/index.ts"
import { Policy } from "../src/session/index.ts"

export const policyFile = path.join(import.meta.dirname, "fleet-policy.txt")

export const jobs = ["acme/issue-1", "acme/issue-2", "acme/issue-3", "acme/issue-4", "acme/issue-5"]

// The entities: their tenant's budget (the id's first part), the policy file's decisions on every call.
export const service = Layer.unwrap(Effect.gen(function*() {
  // Fails with a PolicyError naming the line of the file.
  const policy = yield* Policy.load(policyFile)
  return AgentSession.layer({
    budget: (entityId) => entityId.split("/")[0]!,
    canUseTool: Policy.canUseTool(policy),
    // The CLI asks only about calls its own rules leave open: with these it asks about every Read and Bash too.
    settings: JSON.stringify({ permissions: { ask: ["Read", "Bash"] } })
  })
}))

// A job: one turn of its entity, then its CLI is closed (its slot goes to the next job). What it did, what the
// CLI says it cost, and why it stopped when the budget stopped it. A turn the budget stops midway still streams
// its messages, its result (what the budget was charged) among them, before it fails with `OverBudget`: the
// failure is caught on the stream, as its last event, so that those messages are kept.
export const runJob = (entityId: string) =>
  Effect.gen(function*() {
    const client = (yield* AgentSession.client)(entityId)
    const events = yield* client.Turn({ turnId: `${entityId}#1`, prompt: `Triage ${entityId}` }).pipe(
      Stream.catchReason("AgentSessionError", "OverBudget", Stream.succeed),
      Stream.runCollect
    )
    yield* client.Close()
    const messages = events.flatMap((event) => event._tag === "TurnMessage" ? [event.message] : [])
    const result = messages.findLast((m) => m._tag === "ResultSuccess" || m._tag === "ResultError")
    return {
      entityId,
      answer: result?._tag === "ResultSuccess" ? result.result : undefined,
      costUsd: result?._tag === "ResultSuccess" || result?._tag === "ResultError" ? result.total_cost_usd : 0,
      refusedTools: result?._tag === "ResultSuccess" || result?._tag === "ResultError"
        ? (result.permission_denials ?? []).map((denial) => denial.tool_name)
        : [],
      budget: events.find((event) => event._tag === "OverBudget")?.message
    }
  })

export const fleet = Effect.forEach(jobs, runJob, { concurrency: "unbounded" })

// $0.002 for the tenant, kept in SQLite (on PostgreSQL for many machines: `Budget.layerSql` over its client).
export const budget = Budget.layerSqlite({ filename: "budget.db", limits: { acme: { usd: 0.002 } } })

// The cap wraps the spawner the CLI layer starts its processes with.
export const capped = CliSlots.layer({ max: 2, maxWait: "1 minute" }).pipe(Layer.provideMerge(Process.nodeSpawner))

// One runner, its entities' messages and turn log in SQLite (`Cluster.layerPostgres` for many machines).
export const program = fleet.pipe(
  Effect.provide(service.pipe(
    Layer.provideMerge(Cluster.layerSqlite({ filename: "cluster.db" })),
    Layer.provideMerge(Live.layerWith({}))
  )),
  Effect.provide(capped),
  Effect.provide(budget)
)
