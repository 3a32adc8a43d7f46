/**
 * A turn through an `AgentSession` entity on PostgreSQL against a direct session with the same store, in one
 * run: a real PostgreSQL (`LocalPostgres`), `Cluster.layerPostgres` with a socket runner in this process, the
 * real CLI on the scripted model (all offline), and a direct `ClaudeCli.session` whose `sessionStore` is the SQL
 * store the cluster provides (the one the entity keeps its conversation in). Both start their CLI with a first
 * turn that is not timed; then `--rounds` interleaved rounds (default 20, alternating which goes first) time one
 * turn each, from asking to the end of its stream. Prints the medians and their ratio against the goal (at most
 * 1.3× the direct session), with the date and the machine, on stderr, and one JSON line on stdout.
 *
 * Where an entity turn's time goes, printed as the medians of its steps: from the spans of the run (the cluster's
 * `AgentSession.Turn` on the runner, the entity's `AgentSession.spanNames`) and the times this process saw the
 * result and the stream's end. The cluster's protocol keeps the request, each chunk of the reply stream and its
 * acknowledgement, and the exit in the database (each chunk waits for the acknowledgement of the one before, the
 * exit for the last); the entity's own steps are the turn log's `begin` and `finish` and the wait for the store
 * to hold the turn before the result goes (see the README's Performance section for what each costs and why).
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

const rounds = (() => {
  const at = process.argv.indexOf("--rounds")
  const n = at < 0 ? 20 : Number(process.argv[at + 1])
  if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds takes a whole number of at least 1, got ${process.argv[at + 1]}`)
  return n
})()

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
const spans: Array<Tracer.NativeSpan> = []
const recorder = Tracer.make({
  span(options) {
    const span = new Tracer.NativeSpan(options)
    spans.push(span)
    return span
  }
})

// Where an entity turn's time went, from its spans: the steps in the order they happen, each in milliseconds.
const steps = (turnId: string, timing: Timing) => {
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
  const handler = spans.findLast((s) => s.name === "AgentSession.Turn" && s.kind === "server" && s.startTime <= begin.start)
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
  delivered: "request saved, runner told, runner's read of it",
  toBegin: "handler to the turn log",
  begin: "TurnLog.begin",
  open: "the CLI made ready (running: the lease look)",
  cli: "the CLI's turn to its result (first chunks sent meanwhile)",
  stored: "the store holding the turn",
  finish: "TurnLog.finish",
  result: "result: reply saved, caller's read of it",
  end: "stream end: acknowledgement, exit saved and read"
} as const

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const program = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const cli = yield* ClaudeCli.ClaudeCli
  const store = yield* SessionStore.SessionStore
  const session = yield* cli.session({ cwd: sandbox.cwd, sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! } })
  const entity = (yield* AgentSession.client)("bench")
  const direct = (round: number) => timed(session.turn(`Question ${round}.`))
  const throughEntity = (round: number) => timed(entity.Turn({ turnId: String(round), prompt: `Question ${round}.` }))
  // The first turns start the CLIs (and the entity); they are not timed.
  yield* direct(0)
  yield* throughEntity(0)
  const directRuns: Array<Timing> = []
  const entityRuns: Array<Timing> = []
  for (let round = 1; round <= rounds; round++) {
    if (round % 2 === 1) {
      directRuns.push(yield* direct(round))
      entityRuns.push(yield* throughEntity(round))
    } else {
      entityRuns.push(yield* throughEntity(round))
      directRuns.push(yield* direct(round))
    }
  }
  return { directRuns, entityRuns }
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

const { directRuns, entityRuns } = await Effect.runPromise(program.pipe(
  Effect.scoped,
  Effect.provide(layer),
  Effect.provideService(Tracer.Tracer, recorder),
  // The runner's start logs warnings (no healthy runner until it has registered) that are not the bench's.
  Effect.provideService(References.MinimumLogLevel, "Error")
))
const directMs = directRuns.map((t) => ms(t.asked, t.ended))
const entityMs = entityRuns.map((t) => ms(t.asked, t.ended))
const entitySteps = entityRuns.map((t, i) => steps(String(i + 1), t))
const directToResult = median(directRuns.map((t) => ms(t.asked, t.result)))
const directEnd = median(directRuns.map((t) => ms(t.result, t.ended)))
const direct = median(directMs)
const entity = median(entityMs)
const ratio = entity / direct
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}, ` +
  `load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`
const log = (s: string) => process.stderr.write(s + "\n")
log(`${new Date().toISOString().slice(0, 10)}, ${machine}`)
log(`turn, median of ${rounds} interleaved, PostgreSQL store:`)
log(`  direct session            ${direct.toFixed(0)} ms (range ${Math.min(...directMs).toFixed(0)}-${Math.max(...directMs).toFixed(0)})`)
log(`  AgentSession entity       ${entity.toFixed(0)} ms (range ${Math.min(...entityMs).toFixed(0)}-${Math.max(...entityMs).toFixed(0)})`)
log(`where an entity turn's time goes (medians of each step; the direct session: ${directToResult.toFixed(1)} ms to its result, ` +
  `${directEnd.toFixed(1)} ms more to its end):`)
const stepMedians = Object.fromEntries(
  Object.keys(stepNames).map((key) => [key, median(entitySteps.map((step) => step[key as keyof typeof stepNames]))])
) as Record<keyof typeof stepNames, number>
for (const [key, name] of Object.entries(stepNames)) {
  log(`  ${name.padEnd(60)}${stepMedians[key as keyof typeof stepNames].toFixed(1).padStart(6)} ms`)
}
log(`entity / direct: ${ratio.toFixed(2)} (+${(entity - direct).toFixed(0)} ms); goal at most ${goal.toFixed(1)}: ${ratio <= goal ? "met" : "NOT met"}`)
process.stdout.write(
  JSON.stringify({ machine, direct, entity, ratio, goal, met: ratio <= goal, directMs, entityMs, steps: stepMedians, directToResult, directEnd }) +
    "\n"
)
