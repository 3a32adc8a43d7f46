/**
 * Agent sessions on a cluster, on one machine: a PostgreSQL (started by the test kit), two runner processes
 * (`scripts/cluster/runner.ts`) and this process as their client, the real CLI against a scripted model,
 * offline. Sessions spread over both runners; one runner is SIGKILLed while a turn streams; its conversations
 * continue on the other. Prints what happens, then one JSON line of what it counted:
 * `{"runners","sessions","killed","resumed","retriedTurns","duplicateModelRequests","orphans","historyKept"}`.
 *
 * Run it with `npm run demo:cluster`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../../test/session/support/Real.ts"
import * as Runners from "../../test/cluster/support/Runners.ts"

const { collect, resultText, within } = Runners
const short = (text: string) => text.length > 32 ? `${text.slice(0, 32)}...` : text

// The library's default, unless CLAUDE_CLUSTER_SERIALIZATION says ndjson (as the runners read it too).
const serialization = process.env.CLAUDE_CLUSTER_SERIALIZATION === "ndjson" ? "ndjson" : "binary"

export const demo = Runners.withCluster(serialization, ({ address, moving, runners, server, staying, survivor, victim }) =>
  Effect.gen(function*() {
    const client = yield* AgentSession.client
    const sessions = [...moving, ...staying]
    const where = (runner: string | null) => runners.find((r) => address(r) === runner)?.name ?? "?"
    for (const runner of runners) yield* Console.log(`runner ${runner.name}: pid ${runner.process.pid}, at ${address(runner)}`)
    yield* Console.log(`RPCs between them and this client: ${serialization}`)

    const starts: Array<AgentSession.TurnStarted> = []
    const turn = (name: string, n: number, prompt: string) =>
      collect(name, `${name}-${n}`, `${name}: ${prompt}`).pipe(
        Effect.tap((events) => Effect.sync(() => starts.push(...events.filter((e) => e._tag === "TurnStarted"))))
      )

    yield* Console.log(`\n${sessions.length} sessions, first turns:`)
    for (const [name, events] of (yield* Effect.forEach(sessions, (name) => Effect.map(turn(name, 1, "first"), (e) => [name, e] as const), { concurrency: 4 }))) {
      const info = yield* client(name).Info()
      yield* Console.log(`  ${name} on runner ${where(info.runner)} (CLI pid ${info.pid}): "${short(resultText(events))}"`)
    }

    const [inFlight, finished] = moving
    yield* Console.log(`\n${inFlight} starts a long second turn on runner ${victim.name}...`)
    const running = yield* Effect.forkChild(turn(inFlight, 2, "second"))
    yield* waitUntil(Effect.map(server.requests, (requests) =>
      ScriptedServer.turnRequests(requests).some((r) => r.conversation === inFlight && r.turn === 1)
    )).pipe(within("60 seconds", "the in-flight turn reached the model", runners))
    yield* Console.log(`SIGKILL runner ${victim.name} (pid ${victim.process.pid}) while the model answers`)
    victim.process.kill("SIGKILL")
    yield* Effect.promise(() => victim.exited)

    const retried = yield* Fiber.join(running).pipe(Effect.result)
    const marks = retried._tag === "Success" ? retried.success.filter((e) => e._tag === "TurnStarted") : []
    yield* Console.log(
      `  ${inFlight}: ${marks.map((m) => `started (attempt ${m.attempt})`).join(", ")}, then ` +
        (retried._tag === "Success" ? `"${short(resultText(retried.success))}"` : `failed: ${retried.failure}`)
    )
    const next = yield* turn(finished, 2, "second").pipe(Effect.result)
    yield* Console.log(`  ${finished}: ${next._tag === "Success" ? `"${short(resultText(next.success))}"` : `failed: ${next.failure}`}`)
    const resumed = yield* Effect.filter(moving, (name) =>
      Effect.map(Effect.orElseSucceed(client(name).Info(), () => undefined), (info) => info?.runner === address(survivor)))
    yield* Console.log(`  now on runner ${survivor.name}: ${resumed.join(", ")}`)

    // Counted from the scripted server's log: a model request per turn started (its attempts included) is
    // expected; anything more went to the model twice.
    const requests = ScriptedServer.turnRequests(yield* server.requests)
    const duplicateModelRequests = Math.max(0, requests.length - starts.length)
    const historyKept = moving.every((name) => {
      const body = JSON.stringify(requests.filter((r) => r.conversation === name && r.turn! >= 1).at(-1)?.body ?? "")
      return body.includes(`${name}: first`) && body.includes(Runners.first(name))
    })
    yield* waitUntil(Effect.sync(() => Runners.leftBehind(victim).length === 0)).pipe(
      Effect.timeout(Runners.guardDeadline),
      Effect.ignore
    )
    const orphans = Runners.leftBehind(victim)
    for (const orphan of orphans) yield* Console.log(`  left behind by runner ${victim.name}: ${orphan.pid} ${short(orphan.cmd)}`)
    yield* Console.log(`  the model was sent the earlier turns after the move: ${historyKept ? "yes" : "no"}\n`)
    yield* Console.log(JSON.stringify({
      runners: runners.length,
      sessions: sessions.length,
      killed: 1,
      resumed: resumed.length,
      retriedTurns: starts.filter((s) => s.attempt > 1).length,
      duplicateModelRequests,
      orphans: orphans.length,
      historyKept
    }))
  })
).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

if (import.meta.main) NodeRuntime.runMain(demo)
