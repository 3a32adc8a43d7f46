/**
 * A client process of the two-runner cluster (`Runners.withCluster`): runs one `Turn` and writes each of its
 * events as a JSON line, so that a test can kill it mid-turn. The database is `CLAUDE_CLUSTER_PG_URL`; the
 * turn is `TURN_ENTITY`, `TURN_ID`, `TURN_PROMPT`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { shardingConfig } from "../../../examples/cluster-runner.ts"
import * as AgentSession from "../../../src/cluster/AgentSession.ts"
import * as Cluster from "../../../src/cluster/Cluster.ts"

const env = (name: string) => process.env[name]!

Effect.gen(function*() {
  const client = yield* AgentSession.client
  yield* client(env("TURN_ENTITY")).Turn({ turnId: env("TURN_ID"), prompt: env("TURN_PROMPT") }).pipe(
    Stream.runForEach((event) => Effect.sync(() => process.stdout.write(JSON.stringify({ event: event._tag }) + "\n")))
  )
}).pipe(
  Effect.provide(Cluster.layerPostgres({ url: Redacted.make(env("CLAUDE_CLUSTER_PG_URL")), shardingConfig })),
  NodeRuntime.runMain
)
