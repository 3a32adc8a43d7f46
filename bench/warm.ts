/**
 * Warm starts and the cluster's overhead, on the real CLI against the scripted model, in one run:
 *
 * - warm against the SDK: time from asking for a one-turn query to the model's first assistant message, from
 *   a `SparePool` spare (`pool.query`, the prompt sent with the claim) and from the Agent SDK's `prewarm()`
 *   then `claim()`, both spares parked beforehand; `--rounds` interleaved rounds (default 15), alternating
 *   which goes first, and the median of the rounds' ratios against the goal (at most 1.00: as fast as the SDK);
 * - once each: a cold start (`ClaudeCli.session` then `turn`), a new conversation's first `Turn` on an
 *   `AgentSession` entity type with `spares` (its spare parked since the bench started), and a turn of a
 *   session already running, directly (`session.turn`) and through an entity on a test runner (`Turn`), the
 *   difference being the cluster's overhead.
 *
 * Prints a table on stderr (with the date and the machine) and one JSON line on stdout.
 *
 * `npm run bench:warm [-- --rounds 15]`
 */
import { prewarm } from "@anthropic-ai/claude-agent-sdk"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as os from "node:os"
import * as AgentSession from "../src/cluster/AgentSession.ts"
import * as Cluster from "../src/cluster/Cluster.ts"
import * as SparePool from "../src/SparePool.ts"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as Scripted from "../src/testing/Scripted.ts"
import * as Script from "../src/testing/Script.ts"

const log = (s: string) => process.stderr.write(s + "\n")

interface Row {
  readonly name: string
  readonly firstMessageMs: number
  readonly resultMs: number
}

// The model's first output: an assistant message, in the library's types, the SDK's, or an entity's events.
const isAssistant = (item: any): boolean =>
  item?._tag === "AssistantMessage" || item?.type === "assistant" ||
  (item?._tag === "TurnMessage" && item.message._tag === "AssistantMessage")

// Times from `start` to the first assistant message and to the end of `stream`.
const timed = <A, E, R>(name: string, start: number, stream: Stream.Stream<A, E, R>) =>
  Effect.gen(function*() {
    let first: number | undefined
    yield* Stream.runForEach(stream, (item) => Effect.sync(() => isAssistant(item) ? first ??= performance.now() : undefined))
    return { name, firstMessageMs: (first ?? NaN) - start, resultMs: performance.now() - start }
  })

const script = Script.make(Array.from({ length: 8 }, (_, i) => Script.turn(`Answer ${i}.`)))

const rounds = (() => {
  const at = process.argv.indexOf("--rounds")
  const n = at < 0 ? 15 : Number(process.argv[at + 1])
  if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds takes a whole number of at least 1, got ${process.argv[at + 1]}`)
  return n
})()

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

// How long both spares sit parked before a round is timed, as spares do between requests.
const settle = "2 seconds"

// The goal: a warm start at least as fast as the SDK's prewarm to the first assistant message.
const goal = 1

const program = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const cli = yield* ClaudeCli.ClaudeCli

  // Cold: the whole start-up before the first message.
  const coldStart = performance.now()
  const coldSession = yield* cli.session({})
  const cold = yield* timed("cold", coldStart, coldSession.turn("hello"))
  // A running session: a second turn directly.
  const direct = yield* timed("turn, direct session", performance.now(), coldSession.turn("again"))

  // Warm against the SDK: in each round both spares are parked before either is timed.
  const pool = yield* SparePool.make({ size: 1 })
  const warmRuns: Array<Row> = []
  const sdkRuns: Array<Row> = []
  for (let round = 0; round < rounds; round++) {
    const spare = yield* Effect.promise(() =>
      prewarm({ options: { pathToClaudeCodeExecutable: sandbox.executable, env: { ...sandbox.env } } })
    )
    for (let waited = 0; (yield* pool.parked) < 1; waited += 20) {
      if (waited > 60_000) return yield* Effect.die("no spare parked within a minute")
      yield* Effect.sleep("20 millis")
    }
    // A CLI goes on loading for a while after it answers `initialize`: both spares settle before either is timed.
    yield* Effect.sleep(settle)
    const warm = Effect.suspend(() =>
      timed("warm (SparePool)", performance.now(), pool.query("hello", { cwd: sandbox.cwd }))
    )
    const sdk = Effect.suspend(() =>
      timed(
        "SDK prewarm + claim",
        performance.now(),
        Stream.fromAsyncIterable(spare.claim({ prompt: "hello", options: { cwd: sandbox.cwd } }), (e) => e)
      )
    ).pipe(Effect.ensuring(Effect.promise(() => spare[Symbol.asyncDispose]())))
    if (round % 2 === 0) {
      warmRuns.push(yield* warm)
      sdkRuns.push(yield* sdk)
    } else {
      sdkRuns.push(yield* sdk)
      warmRuns.push(yield* warm)
    }
  }
  if ((yield* pool.claimed) !== rounds) return yield* Effect.die(`only ${yield* pool.claimed} of ${rounds} claims were warm`)

  // A new conversation on an entity type with spares: its first prompt goes to a spare with the claim.
  const warmEntity = yield* timed(
    "entity, new conversation (spare)",
    performance.now(),
    (yield* WarmEntity.client)("bench-warm").Turn({ turnId: "1", prompt: "hello" })
  )

  // Through an entity: the first turn starts its CLI, the second is measured.
  const client = yield* AgentSession.client
  yield* Stream.runDrain(client("bench").Turn({ turnId: "1", prompt: "hello" }))
  const entity = yield* timed("turn, entity (in memory)", performance.now(), client("bench").Turn({ turnId: "2", prompt: "again" }))

  return { cold, direct, entity, warmEntity, warmRuns, sdkRuns }
})

// An entity type whose runner keeps a spare parked for new conversations in the sandbox.
const WarmEntity = AgentSession.make("WarmBench")

const layer = Layer.mergeAll(
  AgentSession.layer(),
  Layer.unwrap(Effect.map(Scripted.Sandbox, (sandbox) => WarmEntity.layer({ cwd: sandbox.cwd, spares: 1 })))
).pipe(
  Layer.provideMerge(Cluster.layerTest),
  Layer.provideMerge(Scripted.layer(script)),
  Layer.provideMerge(NodeServices.layer)
)

const { cold, direct, entity, warmEntity, warmRuns, sdkRuns } = await Effect.runPromise(
  program.pipe(Effect.scoped, Effect.provide(layer))
)
const ratios = warmRuns.map((warm, i) => warm.firstMessageMs / sdkRuns[i].firstMessageMs)
const ratio = median(ratios)
const summary = (name: string, runs: ReadonlyArray<Row>): Row => ({
  name: `${name}, median of ${runs.length}`,
  firstMessageMs: median(runs.map((r) => r.firstMessageMs)),
  resultMs: median(runs.map((r) => r.resultMs))
})
const warm = summary("warm (SparePool)", warmRuns)
const sdk = summary("SDK prewarm + claim", sdkRuns)
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}, ` +
  `load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`
const pad = (s: string, n: number) => s.padEnd(n)
log(`${new Date().toISOString().slice(0, 10)}, ${machine}`)
log(`${pad("", 36)}first assistant message   result`)
for (const row of [cold, warm, sdk, warmEntity, direct, entity]) {
  log(`${pad(row.name, 36)}${pad(row.firstMessageMs.toFixed(0) + " ms", 26)}${row.resultMs.toFixed(0)} ms`)
}
log(
  `warm / SDK prewarm, first assistant message: ${ratio.toFixed(3)} (median of ${rounds} interleaved rounds, ` +
    `range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); goal at most ${goal.toFixed(2)}: ` +
    (ratio <= goal ? "met" : "NOT met")
)
log(`warm / cold first message: ${(warm.firstMessageMs / cold.firstMessageMs).toFixed(2)}`)
log(`entity with spares, new conversation / SDK prewarm (one run): ${(warmEntity.firstMessageMs / sdk.firstMessageMs).toFixed(2)}`)
log(`entity (in memory) / direct turn, one run: ${(entity.resultMs / direct.resultMs).toFixed(2)}`)
process.stdout.write(JSON.stringify({ machine, ratio, goal, met: ratio <= goal, ratios, rows: [cold, warm, sdk, warmEntity, direct, entity], warmRuns, sdkRuns }) + "\n")
