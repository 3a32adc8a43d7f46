/**
 * Two runner processes on one real PostgreSQL, the real CLI on one scripted model: entities spread over both;
 * one runner SIGKILLed while a turn streams; its entities continue on the other with their history.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { shardingConfig } from "../../examples/cluster-runner.ts"
import { waitUntil } from "../session/support/Real.ts"
import * as Postgres from "../support/Postgres.ts"
import * as Runners from "./support/Runners.ts"

// Conversations named after their entities; each entity's first turn is quick, its second streams for seconds.
// A conversation resumed after a crash may carry the CLI's note of the interrupted turn (one more assistant
// message): the retry then lands one turn further, answered the same.
const names = Array.from({ length: 12 }, (_, i) => `agent${String.fromCharCode(97 + i)}`)
const first = (name: string) => `${name} one.`
const second = (name: string) => `${name} two: ` + "z".repeat(90)
const script: Script.Script = {
  conversations: names.map((name) =>
    Script.conversation(name, MessagesRequest.firstUserTextIncludes(`${name}:`), [
      Script.turn(first(name)),
      Script.turn(second(name), { eventDelay: "120 millis", chunkSize: 3 }),
      Script.turn(second(name))
    ])
  ),
  sideReply: "Scripted session"
}

// The host-death guard's grace between SIGTERM and SIGKILL to a CLI's process group, and time to spare.
const guardDeadline = Duration.seconds(2 + 15)

const collect = (entityId: string, turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client(entityId).Turn({ turnId, prompt })))

const resultText = (events: ReadonlyArray<AgentSession.TurnEvent>) => {
  const last = events.at(-1)
  return last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : `no result: ${last?._tag}`
}

describe("Cluster.layerPostgres: failover between two runner processes", () => {
  it.live("a runner SIGKILLed mid-turn: its entities continue on the other with their history", () =>
    Effect.gen(function*() {
      const pg = yield* Postgres.start
      const url = `postgres://${pg.username}@${pg.host}:${pg.port}/${pg.database}`
      const server = yield* ScriptedServer.make(script)
      const sandboxA = yield* ClaudeSandbox.make({ baseUrl: server.url })
      // Its own home (config dir, transcripts), the same working directory: only the store carries a conversation.
      const sandboxB = { ...(yield* ClaudeSandbox.make({ baseUrl: server.url })), cwd: sandboxA.cwd }
      const ports = [pg.port + 1 + Math.floor(Math.random() * 1000), pg.port + 1101 + Math.floor(Math.random() * 1000)]
      const runners = [
        Runners.start({ name: "A", url, port: ports[0]!, sandbox: sandboxA }),
        Runners.start({ name: "B", url, port: ports[1]!, sandbox: sandboxB })
      ]
      for (const runner of runners) yield* Effect.addFinalizer(() => Runners.stop(runner))
      yield* Effect.all(runners.map(Runners.ready), { concurrency: 2 }).pipe(within("60 seconds", "runners ready", runners))
      const address = (runner: Runners.Runner) => `127.0.0.1:${runner.port}`
      yield* scenario(server, runners as [Runners.Runner, Runners.Runner], address).pipe(
        Effect.provide(Cluster.layerPostgres({ url: Redacted.make(url), shardingConfig }))
      )
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 300_000)
})

// A bounded wait; on timeout, what was awaited and what the runners wrote to stderr.
const within = (duration: Duration.Input, what: string | (() => string), runners: ReadonlyArray<Runners.Runner>) =>
<A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(self, {
    duration,
    orElse: () =>
      Effect.fail(new Error(`timed out waiting for ${typeof what === "string" ? what : what()}\n${runners.map((r) => `${r.name}: ${r.stderr()}`).join("\n")}`))
  })

const scenario = (
  server: ScriptedServer.Shape,
  runners: readonly [Runners.Runner, Runners.Runner],
  address: (runner: Runners.Runner) => string
) =>
    Effect.gen(function*() {

      // Both runners registered before any entity is placed, so that the shards are spread from the start.
      const sql = yield* SqlClient.SqlClient
      let registered: unknown = []
      yield* waitUntil(
        sql<{ readonly address: string; readonly healthy: boolean }>`SELECT address, healthy FROM cluster_runners`.pipe(
          Effect.map((rows) => {
            registered = rows
            return rows.filter((row) => row.healthy).length === 2
          }),
          Effect.catch((e) => Effect.sync(() => (registered = String(e), false)))
        )
      ).pipe(within("60 seconds", () => `both runners registered: ${JSON.stringify(registered)}`, runners))

      // Where each entity lives, asked until the shards are spread over both runners.
      const client = yield* AgentSession.client
      const placement = Effect.forEach(names, (name) => Effect.map(client(name).Info(), (info) => [name, info.runner] as const), { concurrency: 4 })
      let placed: ReadonlyArray<readonly [string, string | null]> = []
      yield* waitUntil(Effect.map(Effect.orElseSucceed(placement, () => []), (all) => {
        placed = all
        return runners.every((runner) => all.filter(([, at]) => at === address(runner)).length >= 2)
      })).pipe(within("60 seconds", () => `entities spread: ${JSON.stringify(placed)}`, runners))
      const on = (runner: Runners.Runner) => placed.filter(([, at]) => at === address(runner)).slice(0, 2).map(([name]) => name)
      const [victim, survivor] = runners
      const moving = on(victim)
      const staying = on(survivor)
      const entities = [...moving, ...staying]

      // First turns everywhere.
      const firsts = yield* Effect.forEach(entities, (name) => collect(name, `${name}-1`, `${name}: first`), { concurrency: 4 })
      assert.deepStrictEqual(firsts.map(resultText), entities.map(first))
      const infos = yield* Effect.forEach(entities, (name) => client(name).Info())
      assert.deepStrictEqual(infos.map((info) => info.runner), [...moving.map(() => address(victim)), ...staying.map(() => address(survivor))])
      for (const [i, name] of moving.entries()) assert.include(victim.spawned(), infos[i]!.pid, name)

      // The second turn of one moving entity streams when its runner is killed.
      const [inFlight, finished] = moving as [string, string]
      const running = yield* Effect.forkChild(collect(inFlight, `${inFlight}-2`, `${inFlight}: second`))
      yield* waitUntil(Effect.map(server.requests, (requests) =>
        ScriptedServer.turnRequests(requests).some((r) => r.conversation === inFlight && r.turn === 1)
      )).pipe(within("60 seconds", "the in-flight turn reached the model", runners))
      victim.process.kill("SIGKILL")
      yield* Effect.promise(() => victim.exited)

      // The in-flight turn is run again on the survivor, once, and says so.
      const retried = yield* Fiber.join(running).pipe(within("120 seconds", "the retried turn", runners))
      const starts = retried.filter((e) => e._tag === "TurnStarted")
      assert.deepStrictEqual(starts.at(-1), new AgentSession.TurnStarted({ turnId: `${inFlight}-2`, attempt: 2 }))
      assert.strictEqual(resultText(retried), second(inFlight))

      // The other moved entity continues its conversation there; its first turn, asked again, comes from the log.
      const replayed = yield* collect(finished, `${finished}-1`, `${finished}: first`)
      assert.deepStrictEqual(replayed[0], new AgentSession.TurnReplayed({ turnId: `${finished}-1` }))
      const next = yield* collect(finished, `${finished}-2`, `${finished}: second`)
      assert.strictEqual(resultText(next), second(finished))
      for (const name of moving) {
        const info = yield* client(name).Info()
        assert.strictEqual(info.runner, address(survivor), name)
        assert.include(survivor.spawned(), info.pid, name)
      }

      // What the model was sent after the move: each conversation's earlier turn with the new prompt.
      const requests = ScriptedServer.turnRequests(yield* server.requests)
      for (const name of moving) {
        const last = requests.filter((r) => r.conversation === name && r.turn! >= 1).at(-1)!
        const body = JSON.stringify(last.body)
        assert.include(body, `${name}: first`, name)
        assert.include(body, first(name), name)
        assert.include(body, `${name}: second`, name)
      }
      // Every finished turn reached the model once; the in-flight one twice (its retry).
      const count = (name: string, turn: number) =>
        requests.filter((r) => r.conversation === name && (turn === 0 ? r.turn === 0 : r.turn! >= 1)).length
      assert.deepStrictEqual(entities.map((name) => count(name, 0)), entities.map(() => 1))
      assert.strictEqual(count(inFlight, 1), 2)
      assert.strictEqual(count(finished, 1), 1)

      // The killed runner's CLIs and their tools are gone once the host-death guard has had its time.
      yield* waitUntil(Effect.sync(() => Runners.leftBehind(victim).length === 0)).pipe(
        Effect.timeout(guardDeadline),
        Effect.catchTag("TimeoutError", () => Effect.void)
      )
      assert.deepStrictEqual(Runners.leftBehind(victim), [])
    })
