/**
 * A runner sent SIGTERM while a turn runs a tool, on two runner processes and one real PostgreSQL (as the
 * failover test): the runner drains, the turn finishes there and is not retried, its tool ran once. Counted from
 * outside: the tool's own record of its runs, the SQL tables, the scripted model's request log.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "./support/Runners.ts"

const { collect, first, resultText, second, waitUntil, within } = Runners

describe("Cluster.layerPostgres: drain", () => {
  it.live("SIGTERM with a turn running: it finishes on the same runner, not retried, its tool run once", () =>
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
        const [row] = yield* sql<{ readonly attempts: number }>`SELECT attempts FROM claude_turns
          WHERE entity_id = ${AgentSession.logKey("AgentSession", name)} AND turn_id = ${turnId}`
        assert.strictEqual(Number(row?.attempts), 1)
        const processed = yield* sql<{ readonly processed: boolean }>`SELECT processed FROM cluster_messages
          WHERE entity_id = ${name} AND tag = 'Turn' AND payload LIKE ${`%${turnId}%`}`
        assert.deepStrictEqual(processed.map((r) => r.processed), [true])
        const requests = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === name)
        assert.deepStrictEqual(requests.map((r) => r.turn), [0, 1, 2])
      })
    ).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 300_000)
})
