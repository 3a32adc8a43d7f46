/**
 * A runner process for the durable job test: a SingleRunner on the SQLite file `JOB_DB` with the workflow
 * engine, running the job `JOB_ID` (three turns) on the CLI sandbox `JOB_SANDBOX` (JSON). Writes a JSON line
 * with the job's results (`{"results": [...]}`) when the job ends.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AgentJob from "../../../src/cluster/AgentJob.ts"
import * as AgentSession from "../../../src/cluster/AgentSession.ts"
import * as Cluster from "../../../src/cluster/Cluster.ts"
import * as Live from "../../../src/layers/Live.ts"
import type * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"

const sandbox: ClaudeSandbox.Sandbox = JSON.parse(process.env.JOB_SANDBOX!)
const say = (line: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify(line) + "\n"))

export const Job = AgentJob.make("ThreeTurns")

const layer = AgentJob.layer(Job).pipe(
  Layer.provideMerge(AgentSession.layer()),
  Layer.provideMerge(ClusterWorkflowEngine.layer),
  Layer.provideMerge(Cluster.layerSqlite({ filename: process.env.JOB_DB! })),
  Layer.provideMerge(
    Live.layer({ executable: sandbox.executable, env: sandbox.env, envMode: "replace", cwd: sandbox.cwd })
  )
)

Job.execute({ jobId: process.env.JOB_ID!, prompts: ["job: first", "job: second", "job: third"] }).pipe(
  Effect.flatMap((results) => say({ results: results.map((m) => m._tag === "ResultSuccess" ? m.result : m._tag) })),
  Effect.provide(layer),
  NodeRuntime.runMain
)
