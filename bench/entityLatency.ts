/**
 * A turn through an `AgentSession` entity on PostgreSQL against a direct session with the same store, in one
 * run: a real PostgreSQL (`LocalPostgres`), `Cluster.layerPostgres` with a socket runner in this process, the
 * real CLI on the scripted model (all offline), and a direct `ClaudeCli.session` whose `sessionStore` is the SQL
 * store the cluster provides (the one the entities keep their conversations in). The entity's turns come two
 * ways, each on an entity of its own: `Turn` (persisted by the cluster: its request, reply chunks and exit are
 * rows, and a turn cut by its runner's end is re-delivered to the next) and `ActivityTurn` (the same turn, not
 * persisted: sent to the runner and answered over its socket; a caller re-asks by turn id after a failure, as a
 * workflow activity does). Each starts its CLI with a first turn that is not timed; then `--rounds` rounds
 * (default 20, the order of the three rotating) time one turn each, from asking to the end of its stream.
 * Prints the medians and their ratios against the goal (at most 1.3× the direct session), with the date and the
 * machine, on stderr, and one JSON line on stdout.
 *
 * Where an entity turn's time goes, printed as the medians of its steps: from the spans of the run (the cluster's
 * `AgentSession.Turn` or `AgentSession.ActivityTurn` on the runner, the entity's `AgentSession.spanNames`) and the
 * times this process saw the result and the stream's end. The cluster's protocol keeps the request, each chunk of
 * the reply stream and its acknowledgement, and the exit in the database (each chunk waits for the
 * acknowledgement of the one before, the exit for the last); the entity's own steps are the turn log's `begin`
 * and `finish` and the wait for the store to hold the turn before the result goes (see the README's Performance
 * section for what each costs and why).
 *
 * `node bench/entityLatency.ts [--rounds 20]` (also run by `npm run bench:warm`)
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as os from "node:os"
import * as AgentSession from "../src/cluster/AgentSession.ts"
import * as Cluster from "../src/cluster/Cluster.ts"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as SessionStore from "../src/store/SessionStore.ts"
import * as Telemetry from "../src/Telemetry.ts"
import * as LocalPostgres from "../src/testing/LocalPostgres.ts"
import * as Script from "../src/testing/Script.ts"
import * as Scripted from "../src/testing/Scripted.ts"
import { recordingTracer } from "../test/layers/support.ts"
import * as Flags from "./flags.ts"

const rounds = Flags.count("rounds", 20)

// The goal of issue 23: a turn through an entity costs at most 1.3× a direct session with the same store.
const goal = 1.3

// Each conversation's turns: the untimed first, then one a round.
const script = Script.make(Array.from({ length: rounds + 1 }, (_, i) => Script.turn(`Answer ${i}.`)))

// A timed turn, on the clock its spans are stamped by: when it was asked, when its result came, when its stream
// ended (nanoseconds).
interface Timing {
  readonly asked: bigint
  readonly result: bigint
  readonly ended: bigint
}

const timed = <A, E, R>(turn: Stream.Stream<A, E, R>) =>
  Effect.gen(function*() {
    const asked = yield* Clock.currentTimeNanos
    let result = 0n
    yield* Stream.runForEach(turn, (event) =>
      isResult(event) ? Effect.map(Clock.currentTimeNanos, (now) => {
        result = now
      }) : Effect.void)
    return { asked, result, ended: yield* Clock.currentTimeNanos } satisfies Timing
  })

const isResult = (event: unknown): boolean => {
  const message = (event as { readonly _tag?: string; readonly message?: { readonly _tag: string } })
  const tag = message._tag === "TurnMessage" ? message.message?._tag : message._tag
  return tag === "ResultSuccess" || tag === "ResultError"
}

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6

// Every span of the run, as the cluster and the entity made them (see `AgentSession.spanNames`).
const { spans, tracer: recorder } = recordingTracer()

// Where an entity turn's time went, from its spans: the steps in the order they happen, each in milliseconds.
const steps = (rpc: "Turn" | "ActivityTurn", turnId: string, timing: Timing) => {
  const ofTurn = (name: string) => {
    const span = spans.find((s) => s.name === name && s.attributes.get(Telemetry.attributes.turnId) === turnId)
    if (span === undefined || span.status._tag !== "Ended") throw new Error(`turn ${turnId}: no ended span ${name}`)
    return { start: span.status.startTime, end: span.status.endTime }
  }
  const begin = ofTurn(AgentSession.spanNames.begin)
  const open = ofTurn(AgentSession.spanNames.open)
  const stored = ofTurn(AgentSession.spanNames.stored)
  const finish = ofTurn(AgentSession.spanNames.finish)
  // The cluster's span of the request on the runner: the latest to start before the turn's `begin`.
  const handler = spans.findLast((s) => s.name === `AgentSession.${rpc}` && s.kind === "server" && s.startTime <= begin.start)
  if (handler === undefined || handler.startTime < timing.asked) throw new Error(`turn ${turnId}: no server span`)
  return {
    delivered: ms(timing.asked, handler.startTime),
    toBegin: ms(handler.startTime, begin.start),
    begin: ms(begin.start, begin.end),
    open: ms(begin.end, open.end),
    cli: ms(open.end, stored.start),
    stored: ms(stored.start, stored.end),
    finish: ms(finish.start, finish.end),
    result: ms(finish.end, timing.result),
    end: ms(timing.result, timing.ended)
  }
}

const stepNames = {
  delivered: "request to the handler (Turn: saved, runner told, read)",
  toBegin: "handler to the turn log",
  begin: "TurnLog.begin",
  open: "the CLI made ready (running: the lease look)",
  cli: "the CLI's turn to its result (first chunks sent meanwhile)",
  stored: "the store holding the turn",
  finish: "TurnLog.finish",
  result: "result: reply to the caller (Turn: saved and read)",
  end: "stream end (Turn: acknowledgement, exit saved and read)"
} as const

const program = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const cli = yield* ClaudeCli.ClaudeCli
  const store = yield* SessionStore.SessionStore
  const session = yield* cli.session({ cwd: sandbox.cwd, sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! } })
  const client = yield* AgentSession.client
  const contenders = {
    direct: (round: number) => timed(session.turn(`Question ${round}.`)),
    entity: (round: number) => timed(client("bench").Turn({ turnId: `t${round}`, prompt: `Question ${round}.` })),
    activity: (round: number) => timed(client("bench-activity").ActivityTurn({ turnId: `a${round}`, prompt: `Question ${round}.` }))
  }
  // The first turns start the CLIs (and the entities); they are not timed.
  for (const turn of Object.values(contenders)) yield* turn(0)
  const runs = { direct: [] as Array<Timing>, entity: [] as Array<Timing>, activity: [] as Array<Timing> }
  const orders = [["direct", "entity", "activity"], ["activity", "direct", "entity"], ["entity", "activity", "direct"]] as const
  for (let round = 1; round <= rounds; round++) {
    for (const name of orders[round % orders.length]) runs[name].push(yield* contenders[name](round))
  }
  return runs
})

// The entity keeps its conversation in the cluster's SQL session store, as a runner of `examples/cluster.ts` does.
const entities = Layer.unwrap(Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const store = yield* SessionStore.SessionStore
  return AgentSession.layer({ cwd: sandbox.cwd, sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! } })
}))

const cluster = Layer.unwrap(Effect.gen(function*() {
  const server = yield* LocalPostgres.make
  const port = yield* LocalPostgres.freePort
  return Cluster.layerPostgres({
    url: Redacted.make(server.url),
    runnerAddress: { host: "127.0.0.1", port },
    // One runner: it takes its shards within a second of starting.
    shardingConfig: { refreshAssignmentsInterval: "100 millis" }
  })
}))

const layer = entities.pipe(
  Layer.provideMerge(cluster),
  Layer.provideMerge(Scripted.layer(script))
)

const runs = await Effect.runPromise(program.pipe(
  Effect.scoped,
  Effect.provide(layer),
  Effect.provideService(Tracer.Tracer, recorder),
  // The runner's start logs warnings (no healthy runner until it has registered) that are not the bench's.
  Effect.provideService(References.MinimumLogLevel, "Error")
))
const total = (timings: ReadonlyArray<Timing>) => timings.map((t) => ms(t.asked, t.ended))
const directMs = total(runs.direct)
const entityMs = total(runs.entity)
const activityMs = total(runs.activity)
const direct = Flags.median(directMs)
const entity = Flags.median(entityMs)
const activity = Flags.median(activityMs)
const ratio = entity / direct
const activityRatio = activity / direct
const directToResult = Flags.median(runs.direct.map((t) => ms(t.asked, t.result)))
const directEnd = Flags.median(runs.direct.map((t) => ms(t.result, t.ended)))
// The medians of each step of an entity's turns.
const stepMedians = (rpc: "Turn" | "ActivityTurn", prefix: string, timings: ReadonlyArray<Timing>) => {
  const each = timings.map((t, i) => steps(rpc, `${prefix}${i + 1}`, t))
  return Object.fromEntries(
    Object.keys(stepNames).map((key) => [key, Flags.median(each.map((step) => step[key as keyof typeof stepNames]))])
  ) as Record<keyof typeof stepNames, number>
}
const entitySteps = stepMedians("Turn", "t", runs.entity)
const activitySteps = stepMedians("ActivityTurn", "a", runs.activity)

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}, ` +
  `load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`
const log = (s: string) => process.stderr.write(s + "\n")
const range = (xs: ReadonlyArray<number>) => `range ${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`
log(`${new Date().toISOString().slice(0, 10)}, ${machine}`)
log(`turn, median of ${rounds} interleaved, PostgreSQL store:`)
log(`  direct session                        ${direct.toFixed(0)} ms (${range(directMs)})`)
log(`  AgentSession entity, Turn             ${entity.toFixed(0)} ms (${range(entityMs)})`)
log(`  AgentSession entity, ActivityTurn     ${activity.toFixed(0)} ms (${range(activityMs)})`)
log(`where an entity turn's time goes (medians of each step, Turn / ActivityTurn; the direct session: ` +
  `${directToResult.toFixed(1)} ms to its result, ${directEnd.toFixed(1)} ms more to its end):`)
for (const [key, name] of Object.entries(stepNames)) {
  const k = key as keyof typeof stepNames
  log(`  ${name.padEnd(60)}${entitySteps[k].toFixed(1).padStart(6)} ms ${activitySteps[k].toFixed(1).padStart(6)} ms`)
}
const verdict = (r: number) => `goal at most ${goal.toFixed(1)}: ${r <= goal ? "met" : "NOT met"}`
log(`entity (Turn) / direct: ${ratio.toFixed(2)} (+${(entity - direct).toFixed(0)} ms); ${verdict(ratio)}`)
log(`entity (ActivityTurn, not persisted) / direct: ${activityRatio.toFixed(2)} (+${(activity - direct).toFixed(0)} ms); ${verdict(activityRatio)}`)
process.stdout.write(
  JSON.stringify({
    machine,
    direct,
    entity,
    activity,
    ratio,
    activityRatio,
    goal,
    met: ratio <= goal,
    activityMet: activityRatio <= goal,
    directMs,
    entityMs,
    activityMs,
    steps: entitySteps,
    activitySteps,
    directToResult,
    directEnd
  }) + "\n"
)
