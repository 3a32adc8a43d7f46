/**
 * A client SIGKILLed while its turn streams, on two runner processes and one real PostgreSQL (as the failover
 * test): the turn runs to its end on the runner and is logged, its request is marked processed, and the entity
 * then idles out, its CLI gone; asked again by turn id, the turn comes from the log. Counted from outside: the
 * process table, the SQL tables, the scripted model's request log.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as StalledCaller from "../../src/cluster/internal/stalledCaller.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "./support/Runners.ts"

const { collect, first, resultText, second, waitUntil, within } = Runners

const maxIdleTime = Duration.seconds(5)
const clientScript = path.join(import.meta.dirname, "support", "client.ts")

describe("AgentSession: a dead client", () => {
  it.live("SIGKILLed mid-turn: the turn ends, is processed and readable by id; the CLI idles out", () =>
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
        const logged = sql<{ readonly messages: string | null }>`SELECT messages FROM claude_turns
          WHERE entity_id = ${AgentSession.logKey("AgentSession", name)} AND turn_id = ${turnId}`.pipe(
            Effect.map((rows) => rows[0]?.messages != null),
            Effect.orDie
          )
        yield* waitUntil(logged).pipe(within("60 seconds", "the turn logged", runners))

        // Its request is processed, and the entity idles out: its CLI ends within the idle time, the reaper's
        // round (5 s) and the grace a caller has to read the end of a turn.
        const processed = sql<{ readonly processed: boolean }>`SELECT processed FROM cluster_messages
          WHERE entity_id = ${name} AND tag = 'Turn' AND payload LIKE ${`%${turnId}%`}`.pipe(
            Effect.map((rows) => rows.length === 1 && rows[0]!.processed),
            Effect.orDie
          )
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
