/**
 * One runner of a cluster of agent sessions: `AgentSession` entities on a socket runner sharing the
 * PostgreSQL at `CLAUDE_CLUSTER_PG_URL`, reachable at `CLAUDE_CLUSTER_RUNNER_HOST`:`CLAUDE_CLUSTER_RUNNER_PORT`,
 * their conversations mirrored into the SQL session store of the same database, so that another runner
 * resumes them. The CLI runs in the sandbox given as JSON in `RUNNER_SANDBOX` (the scripted model, offline).
 *
 * Writes one JSON line per CLI it spawns (`{"spawned": pid}`) and `{"ready": port}` once it serves.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Process from "../../src/Process.ts"
import * as SessionStore from "../../src/sessions/SessionStore.ts"
import type * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"

const say = (line: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify(line) + "\n"))

/**
 * Sharding settings for a failover within seconds on one machine: shard locks refreshed every second and
 * expiring after five, storage polled twice a second.
 */
export const shardingConfig = {
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "5 seconds",
  refreshAssignmentsInterval: "1 second",
  runnerHealthCheckInterval: "1 second",
  entityMessagePollInterval: "500 millis",
  entityReplyPollInterval: "250 millis",
  sendRetryInterval: "250 millis"
} as const

// The process's spawner (guarded against the host's death), announcing each CLI it starts.
const announcingSpawner = Layer.effect(
  ChildProcessSpawner.ChildProcessSpawner,
  ChildProcessSpawner.ChildProcessSpawner.useSync((node) =>
    ChildProcessSpawner.make((command) => Effect.tap(node.spawn(command), (handle) => say({ spawned: handle.pid })))
  )
).pipe(Layer.provide(Process.nodeSpawner))

const runner = (sandbox: ClaudeSandbox.Sandbox) => {
  const entities = Layer.unwrap(Effect.map(Effect.service(SessionStore.SessionStore), (store) =>
  AgentSession.layer({
    cwd: sandbox.cwd,
    // The scripted model may run a shell command (a tool the failover test watches end with its runner).
    allowedTools: ["Bash"],
    sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! }
  })))

  return entities.pipe(
  Layer.provideMerge(Layer.unwrap(Effect.map(Cluster.postgresConfig, (options) =>
    Cluster.layerPostgres({ ...options, shardingConfig })))),
  Layer.provideMerge(
    Live.layerWith({ executable: sandbox.executable, env: sandbox.env, envMode: "replace", cwd: sandbox.cwd }).pipe(
      Layer.provide(announcingSpawner)
    )
  )
)
}

if (import.meta.main) {
  const sandbox: ClaudeSandbox.Sandbox = JSON.parse(process.env.RUNNER_SANDBOX!)
  Layer.launch(Layer.merge(runner(sandbox), Layer.effectDiscard(say({ ready: Number(process.env.CLAUDE_CLUSTER_RUNNER_PORT) })))).pipe(
    NodeRuntime.runMain
  )
}
