/**
 * A runner of agent sessions: `AgentSession` entities on a socket runner whose messages, shard locks and turn
 * log live in one PostgreSQL (`CLAUDE_CLUSTER_PG_URL`), reachable by the other runners at
 * `CLAUDE_CLUSTER_RUNNER_HOST`:`CLAUDE_CLUSTER_RUNNER_PORT`. Conversations are kept in the SQL session store
 * of the same database, so that when this process dies another runner resumes them; the CLIs it started, and
 * their tools, end with it. Here the CLI runs against the scripted model of `examples/cluster.ts`, in the
 * sandbox given as JSON in `RUNNER_SANDBOX`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AgentSession, Cluster } from "../src/cluster/index.ts"
import { Live } from "../src/layers/index.ts"
import { SessionStore } from "../src/store/index.ts"
import type { ClaudeSandbox } from "../src/testing/index.ts"

// Failover within seconds on one machine: shard locks refreshed every 2 s and taken over 10 s after a runner
// stops refreshing them, storage polled twice a second. A refresh that takes longer than its interval gives up
// every shard of the runner; on a loaded machine (CLIs starting) a 1 s one did, and its turns started over.
export const shardingConfig = {
  shardLockRefreshInterval: "2 seconds",
  shardLockExpiration: "10 seconds",
  refreshAssignmentsInterval: "1 second",
  runnerHealthCheckInterval: "1 second",
  entityMessagePollInterval: "500 millis",
  entityReplyPollInterval: "250 millis",
  sendRetryInterval: "250 millis"
} as const

export const runner = (sandbox: ClaudeSandbox.Sandbox) =>
  Layer.unwrap(Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    return AgentSession.layer({
      cwd: sandbox.cwd,
      // The scripted model may run a shell command.
      allowedTools: ["Bash"],
      sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! }
    })
  })).pipe(
    // The database, this runner's address and the serialization, from the environment (Cluster.postgresConfig).
    Layer.provideMerge(Layer.unwrap(Effect.map(Cluster.postgresConfig, (options) =>
      Cluster.layerPostgres({ ...options, shardingConfig })))),
    // The Live layer's spawner ends every CLI it started, and their tools, when this process dies.
    Layer.provideMerge(Live.layer({ executable: sandbox.executable, env: sandbox.env, envMode: "replace", cwd: sandbox.cwd }))
  )

if (import.meta.main) {
  const sandbox: ClaudeSandbox.Sandbox = JSON.parse(process.env.RUNNER_SANDBOX!)
  const ready = Effect.sync(() => console.log(JSON.stringify({ ready: process.pid })))
  Layer.launch(Layer.merge(runner(sandbox), Layer.effectDiscard(ready))).pipe(NodeRuntime.runMain)
}
