/**
 * The defined behaviour of agent session runners and their clients when a process stops mid-turn, on two runner
 * processes and one real PostgreSQL (the failover test's cluster), the real CLI on a scripted model. Counted from
 * outside: the process table, the SQL tables (`claude_turns`, `cluster_messages`), the scripted model's request
 * log, a tool's own record of its runs. Titles read "<case>: <defined behaviour>"; a script turns them into the
 * README's reliability table.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as StalledCaller from "../../src/cluster/internal/stalledCaller.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "../cluster/support/Runners.ts"

const { collect, first, resultText, second, waitUntil, within } = Runners

const maxIdleTime = Duration.seconds(5)
// A client process: one turn, its events written as JSON lines.
const clientScript = path.join(import.meta.dirname, "..", "cluster", "support", "client.ts")

// The rows of a turn in the turn log and in the cluster's messages.
const turnRows = (sql: SqlClient.SqlClient, name: string, turnId: string) =>
  Effect.gen(function*() {
    const [turn] = yield* sql<{ readonly attempts: number; readonly messages: string | null }>`SELECT attempts, messages
      FROM claude_turns WHERE entity_id = ${AgentSession.logKey("AgentSession", name)} AND turn_id = ${turnId}`
    const requests = yield* sql<{ readonly processed: boolean }>`SELECT processed FROM cluster_messages
      WHERE entity_id = ${name} AND tag = 'Turn' AND payload LIKE ${`%${turnId}%`}`
    return { turn, processed: requests.map((r) => r.processed) }
  }).pipe(Effect.orDie)

describe("Cluster", () => {
  describe("a client SIGKILLed while its turn streams", () => {
    it.live("the turn ends and is logged, its request processed; the CLI gone after the idle time; the turn readable by id", () =>
      Runners.withCluster("binary", ({ runners, server, staying: [name], url }) =>
        Effect.gen(function*() {
          const client = yield* AgentSession.client
          const sql = yield* SqlClient.SqlClient
          const turnId = `${name}-2`
          assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))
          const cli = (yield* client(name).Info()).pid!
          assert.isTrue(Runners.isRunning(cli))

          // The second turn streams for seconds; its client dies once the first message came.
          const caller = Runners.spawnNode(clientScript, {
            CLAUDE_CLUSTER_PG_URL: url,
            TURN_ENTITY: name,
            TURN_ID: turnId,
            TURN_PROMPT: `${name}: second`
          }, Runners.newMark())
          yield* Effect.addFinalizer(() => Runners.stop(caller))
          yield* waitUntil(Effect.sync(() => caller.lines.some((line) => line.event === "TurnMessage"))).pipe(
            within("60 seconds", () => `the client's first message: ${caller.stderr()}`, runners)
          )
          caller.process.kill("SIGKILL")
          yield* Effect.promise(() => caller.exited)

          // The turn runs to its end and is logged.
          const logged = Effect.map(turnRows(sql, name, turnId), (rows) => rows.turn?.messages != null)
          yield* waitUntil(logged).pipe(within("60 seconds", "the turn logged", runners))

          // Its request is processed, and the entity idles out: its CLI ends within the idle time, the reaper's
          // round (5 s) and the grace a caller has to read the end of a turn.
          const processed = Effect.map(turnRows(sql, name, turnId), (rows) => rows.processed.length === 1 && rows.processed[0]!)
          const deadline = Duration.sum(Duration.sum(maxIdleTime, StalledCaller.replyGrace), Duration.seconds(5 + 10))
          yield* waitUntil(Effect.map(processed, (done) => done && !Runners.isRunning(cli))).pipe(
            Effect.timeout(deadline),
            Effect.ignore
          )
          assert.isTrue(yield* processed, "the request is processed")
          assert.isFalse(Runners.isRunning(cli), "the CLI is gone")

          // A client that comes back asks by turn id: the logged turn, not a second request to the model.
          const again = yield* collect(name, turnId, `${name}: second`).pipe(within("60 seconds", "the turn by id", runners))
          assert.deepStrictEqual(again[0], new AgentSession.TurnReplayed({ turnId }))
          assert.strictEqual(resultText(again), second(name))
          const requests = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === name)
          assert.deepStrictEqual(requests.map((r) => r.turn), [0, 1])
        })
      , { ENTITY_MAX_IDLE_TIME: "5 seconds" }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 300_000)
  })

  describe("a runner sent SIGTERM while a turn runs a tool", () => {
    it.live("the turn finishes on that runner, is not retried, its tool run once", () =>
      Runners.withCluster("binary", ({ cwd, moving: [name], runners, server, victim }) =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const turnId = `${name}-2`
          assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))

          // The second turn runs a 20 s shell command when its runner is told to stop.
          const runs = path.join(cwd, Runners.toolRunsFile(name))
          const running = yield* Effect.forkChild(collect(name, turnId, Runners.slowToolPrompt(name)))
          yield* waitUntil(Effect.sync(() => fs.existsSync(runs))).pipe(within("60 seconds", "the tool", runners))
          victim.process.kill("SIGTERM")

          // The turn ends on the runner that started it, once.
          const events = yield* Fiber.join(running).pipe(within("120 seconds", "the drained turn", runners))
          assert.deepStrictEqual(events.filter((e) => e._tag === "TurnStarted"), [new AgentSession.TurnStarted({ turnId, attempt: 1 })])
          assert.strictEqual(resultText(events), second(name))
          yield* Effect.promise(() => victim.exited).pipe(within("90 seconds", "the drained runner's exit", runners))
          assert.strictEqual(fs.readFileSync(runs, "utf8"), `${victim.mark}\n`)

          // Not retried: one start in the turn log, the request processed, the model asked once for each step.
          const rows = yield* turnRows(sql, name, turnId)
          assert.deepStrictEqual([Number(rows.turn?.attempts), rows.processed], [1, [true]])
          const requests = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === name)
          assert.deepStrictEqual(requests.map((r) => r.turn), [0, 1, 2])
        })
      ).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 300_000)
  })
})
