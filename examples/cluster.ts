/**
 * Agent services across machines, on one (`npm run demo:cluster`): two runner processes on one PostgreSQL
 * and this process as their client, the real CLI against a scripted model, offline. Sessions spread over both
 * runners; one runner is SIGKILLed while a turn runs a tool; its conversations continue on the other, the turn
 * in flight retried once and marked, the finished ones answered from the turn log. It prints what happens,
 * then one JSON line of what it counted, not asserted: the orphans from the process table, the duplicate model
 * requests from the scripted server's log (requests that ask the model again for a turn it already answered
 * to its end: the same conversation and prompt), the history from what the model was sent after the move.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Console, Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentSession } from "../src/cluster/index.ts"
import { ScriptedServer } from "../src/testing/index.ts"
import * as Kit from "./cluster-kit.ts"

const short = (text: string) => text.length > 32 ? `${text.slice(0, 32)}...` : text
// Binary (the default), unless CLAUDE_CLUSTER_SERIALIZATION says ndjson.
const serialization = process.env.CLAUDE_CLUSTER_SERIALIZATION === "ndjson" ? "ndjson" : "binary"

export const demo = Kit.withCluster(serialization, ({ cwd, moving, runners, server, staying, survivor, victim }) =>
  Effect.gen(function*() {
    const client = yield* AgentSession.client
    const sessions = [...moving, ...staying]
    const where = (address: string | null) => runners.find((r) => r.address === address)?.name ?? "?"
    for (const r of runners) yield* Console.log(`runner ${r.name}: pid ${r.process.pid}, at ${r.address}, RPCs in ${serialization}`)

    // Every TurnStarted the client saw, for the retried turns.
    const starts: Array<AgentSession.TurnStarted> = []
    const turn = (name: string, n: number, prompt: string) =>
      Kit.collect(name, `${name}-${n}`, prompt).pipe(
        Effect.tap((events) => Effect.sync(() => starts.push(...events.filter((e) => e._tag === "TurnStarted"))))
      )

    yield* Console.log(`\n${sessions.length} sessions, first turns:`)
    const firsts = yield* Effect.forEach(sessions, (name) => turn(name, 1, `${name}: first`), { concurrency: 4 })
    for (const [i, name] of sessions.entries()) {
      const info = yield* client(name).Info()
      yield* Console.log(`  ${name} on runner ${where(info.runner)} (CLI pid ${info.pid}): "${short(Kit.resultText(firsts[i]!))}"`)
    }

    const [inFlight, finished] = moving
    yield* Console.log(`\n${inFlight}'s second turn runs a tool on runner ${victim.name}...`)
    const running = yield* Effect.forkChild(turn(inFlight, 2, Kit.toolPrompt(inFlight)))
    const pidFile = path.join(cwd, Kit.toolPidFile(inFlight))
    yield* Kit.waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n"))).pipe(
      Kit.within("60 seconds", "the tool", runners)
    )
    const tree = Kit.leftBehind(victim)
    yield* Console.log(`SIGKILL runner ${victim.name} (pid ${victim.process.pid}) while its tool runs (pid ${fs.readFileSync(pidFile, "utf8").trim()})`)
    yield* Console.log(`  its processes: ${tree.map((p) => `${p.pid} ${short(p.cmd)}`).join("; ")}`)
    victim.process.kill("SIGKILL")
    yield* Effect.promise(() => victim.exited)
    // The host-death guard ends them: SIGTERM at once, SIGKILL after its grace period.
    yield* Kit.waitUntil(Effect.sync(() => Kit.leftBehind(victim).length === 0)).pipe(Effect.timeout(Kit.guardDeadline), Effect.ignore)
    const orphans = Kit.leftBehind(victim)
    yield* Console.log(`  left running: ${orphans.length === 0 ? "nothing" : orphans.map((p) => `${p.pid} ${short(p.cmd)}`).join("; ")}`)

    const retried = yield* Fiber.join(running).pipe(Kit.within("120 seconds", "the retried turn", runners), Effect.result)
    const marks = retried._tag === "Success" ? retried.success.filter((e) => e._tag === "TurnStarted") : []
    yield* Console.log(
      `  ${inFlight}: ${marks.map((m) => `started (attempt ${m.attempt})`).join(", ")}, then ` +
        (retried._tag === "Success" ? `"${short(Kit.resultText(retried.success))}"` : `failed: ${retried.failure}`)
    )
    const replayed = yield* turn(finished, 1, `${finished}: first`).pipe(Effect.result)
    const next = yield* turn(finished, 2, `${finished}: second`).pipe(Effect.result)
    yield* Console.log(
      `  ${finished}: its first turn asked again, ${replayed._tag === "Success" && replayed.success[0]?._tag === "TurnReplayed" ? "from the log" : "not from the log"}; ` +
        `second turn ${next._tag === "Success" ? `"${short(Kit.resultText(next.success))}"` : `failed: ${next.failure}`}`
    )
    const resumed = yield* Effect.filter(moving, (name) =>
      Effect.map(Effect.orElseSucceed(client(name).Info(), () => undefined), (info) => info?.runner === survivor.address))
    yield* Console.log(`  now on runner ${survivor.name}: ${resumed.join(", ")}`)

    const requests = ScriptedServer.turnRequests(yield* server.requests)
    const historyKept = moving.every((name) => {
      const body = JSON.stringify(requests.filter((r) => r.conversation === name && r.turn! >= 1).at(-1)?.body ?? "")
      return body.includes(`${name}: first`) && body.includes(Kit.first(name))
    })
    yield* Console.log(`  the model was sent the earlier turns after the move: ${historyKept ? "yes" : "no"}\n`)
    yield* Console.log(JSON.stringify({
      runners: runners.length,
      sessions: sessions.length,
      killed: 1,
      resumed: resumed.length,
      retriedTurns: starts.filter((s) => s.attempt > 1).length,
      duplicateModelRequests: Kit.duplicateModelRequests(requests),
      orphans: orphans.length,
      historyKept
    }))
  })
).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

if (import.meta.main) NodeRuntime.runMain(demo)
