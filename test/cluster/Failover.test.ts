/**
 * Two runner processes on one real PostgreSQL, the real CLI on one scripted model: entities spread over both;
 * one runner SIGKILLed while a turn runs a tool; its entities continue on the other with their history. The
 * runners and their client serialize RPCs as binary (the default), so the typed messages cross the runners
 * through the binary codec (`Wire`); the demo's test runs the same cluster on ndjson.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../session/support/Real.ts"
import * as Runners from "./support/Runners.ts"

const { collect, first, resultText, second, within } = Runners

describe("Cluster.layerPostgres: failover between two runner processes", () => {
  it.live("a runner SIGKILLed mid-turn: its entities continue on the other with their history", () =>
    Runners.withCluster("binary", ({ cwd, moving, runners, server, staying, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        const entities = [...moving, ...staying]

        // First turns everywhere, each on the runner Info named.
        const firsts = yield* Effect.forEach(entities, (name) => collect(name, `${name}-1`, `${name}: first`), {
          concurrency: 4
        })
        assert.deepStrictEqual(firsts.map(resultText), entities.map(first))
        const infos = yield* Effect.forEach(entities, (name) => client(name).Info())
        assert.deepStrictEqual(
          infos.map((info) => info.runner),
          [victim.address, victim.address, survivor.address, survivor.address]
        )
        // Each CLI in the tree of the runner Info named.
        assert.deepStrictEqual(
          infos.map((info) => [Runners.carries(info.pid!, victim.mark), Runners.carries(info.pid!, survivor.mark)]),
          [[true, false], [true, false], [false, true], [false, true]]
        )

        // The second turn of one moving entity runs a tool (a shell command that sleeps) when its runner is killed.
        const [inFlight, finished] = moving
        const cli = infos[0]!.pid!
        const pidFile = path.join(cwd, Runners.toolPidFile(inFlight))
        const running = yield* Effect.forkChild(collect(inFlight, `${inFlight}-2`, Runners.toolPrompt(inFlight)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")))
          .pipe(within("60 seconds", "the in-flight turn's tool", runners))
        const tool = Number(fs.readFileSync(pidFile, "utf8"))
        // The tool runs in a session of its own, out of the CLI's process group, yet in the runner's tree.
        const tree = Runners.leftBehind(victim).map((p) => p.pid)
        assert.includeMembers(tree, [cli, tool])
        assert.notStrictEqual(Runners.processGroup(tool), Runners.processGroup(cli))
        victim.process.kill("SIGKILL")
        yield* Effect.promise(() => victim.exited)

        // The CLI, its tool and every other process of the killed runner's tree end with the host-death guard,
        // while the turn is being retried elsewhere.
        yield* waitUntil(Effect.sync(() => Runners.leftBehind(victim).length === 0)).pipe(
          Effect.timeout(Runners.guardDeadline),
          Effect.ignore
        )
        assert.deepStrictEqual(Runners.leftBehind(victim), [])
        assert.deepStrictEqual([cli, tool, ...tree].filter(Runners.isRunning), [])

        // The client's stream sees the turn started, then started again on the survivor (marked), then its end.
        const retried = yield* Fiber.join(running).pipe(within("120 seconds", "the retried turn", runners))
        const starts = retried.filter((e) => e._tag === "TurnStarted")
        assert.deepStrictEqual(starts, [1, 2].map((attempt) => new AgentSession.TurnStarted({ turnId: `${inFlight}-2`, attempt })))
        assert.strictEqual(resultText(retried), second(inFlight))

        // The other moved entity continues there; its first turn, asked again, comes from the log.
        const replayed = yield* collect(finished, `${finished}-1`, `${finished}: first`)
        assert.deepStrictEqual(replayed[0], new AgentSession.TurnReplayed({ turnId: `${finished}-1` }))
        assert.strictEqual(resultText(replayed), first(finished))
        const next = yield* collect(finished, `${finished}-2`, `${finished}: second`)
        assert.strictEqual(resultText(next), second(finished))
        for (const name of moving) {
          const info = yield* client(name).Info()
          assert.strictEqual(info.runner, survivor.address, name)
          assert.isTrue(Runners.carries(info.pid!, survivor.mark), name)
        }

        // What the model was sent after the move: the conversation's earlier turn with the new prompt.
        const requests = ScriptedServer.turnRequests(yield* server.requests)
        for (const name of moving) {
          const body = JSON.stringify(requests.filter((r) => r.conversation === name && r.turn! >= 1).at(-1)!.body)
          assert.include(body, `${name}: first`, name)
          assert.include(body, first(name), name)
          assert.include(body, `${name}: second`, name)
        }
        // The retry told the model what the cut attempt did: its tool call, which has no result.
        const retry = JSON.stringify(requests.filter((r) => r.conversation === inFlight && r.turn! >= 1).at(-1)!.body)
        assert.include(retry, "This prompt was sent before")
        assert.include(retry, `Bash {\\"command\\":\\"${Runners.toolCommand(inFlight)}\\"}`)
        assert.include(retry, "no result was recorded")
        // Resumed at the answer before the cut turn: no reply made up for the cut prompt, which is sent once.
        assert.notInclude(retry, "No response requested.")
        assert.strictEqual(retry.split(Runners.toolPrompt(inFlight)).length - 1, 1)
        // Every finished turn reached the model once; the in-flight one twice (its retry).
        const count = (name: string, later: boolean) =>
          requests.filter((r) => r.conversation === name && (later ? r.turn! >= 1 : r.turn === 0)).length
        assert.deepStrictEqual(entities.map((name) => count(name, false)), [1, 1, 1, 1])
        assert.strictEqual(count(inFlight, true), 2)
        assert.strictEqual(count(finished, true), 1)

      })
    ).pipe(Effect.provide(NodeServices.layer)), 300_000)
})
