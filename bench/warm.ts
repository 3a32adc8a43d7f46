/**
 * Warm starts and the cluster's overhead, on the real CLI against the scripted model, in one run:
 *
 * - first-message latency (from asking for a session with a prompt to the model's first message, and to the
 *   turn's result):
 *   `cold` (`ClaudeCli.session` then `turn`), `warm` (a `SparePool` spare claimed, then `turn`) and the Agent
 *   SDK's `prewarm()` then `claim()`;
 * - turn latency of a session already running: directly (`session.turn`) and through an `AgentSession`
 *   entity on a test runner (`Turn`), the difference being the cluster's overhead.
 *
 * Each row is one measurement (one run, no repetitions): read the ratios, not the milliseconds.
 * Prints a table on stderr and one JSON line on stdout.
 *
 * `node bench/warm.ts`
 */
import { prewarm } from "@anthropic-ai/claude-agent-sdk"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as AgentSession from "../src/cluster/AgentSession.ts"
import * as Cluster from "../src/cluster/Cluster.ts"
import * as SparePool from "../src/cluster/SparePool.ts"
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

const program = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const cli = yield* ClaudeCli.ClaudeCli

  // Cold: the whole start-up before the first message.
  const coldStart = performance.now()
  const coldSession = yield* cli.session({})
  const cold = yield* timed("cold", coldStart, coldSession.turn("hello"))
  // A running session: a second turn directly.
  const direct = yield* timed("turn, direct session", performance.now(), coldSession.turn("again"))

  // Warm: a spare parked beforehand, claimed when the session is asked for.
  const pool = yield* SparePool.make({ size: 1 })
  for (let waited = 0; (yield* pool.parked) < 1; waited += 20) {
    if (waited > 60_000) return yield* Effect.die("no spare parked within a minute")
    yield* Effect.sleep("20 millis")
  }
  const warmStart = performance.now()
  const { session: warmSession, warm: wasWarm } = yield* pool.session({ cwd: sandbox.cwd })
  const warm = yield* timed(wasWarm ? "warm (SparePool)" : "warm (SparePool, claim refused)", warmStart, warmSession.turn("hello"))

  // The Agent SDK's prewarm on the same CLI and model.
  const spare = yield* Effect.promise(() =>
    prewarm({ options: { pathToClaudeCodeExecutable: sandbox.executable, env: { ...sandbox.env } } })
  )
  const sdkStart = performance.now()
  const sdk = yield* timed(
    "SDK prewarm + claim",
    sdkStart,
    Stream.fromAsyncIterable(spare.claim({ prompt: "hello", options: { cwd: sandbox.cwd } }), (e) => e)
  )
  yield* Effect.promise(() => spare[Symbol.asyncDispose]())

  // Through an entity: the first turn starts its CLI, the second is measured.
  const client = yield* AgentSession.client
  yield* Stream.runDrain(client("bench").Turn({ turnId: "1", prompt: "hello" }))
  const entity = yield* timed("turn, AgentSession entity", performance.now(), client("bench").Turn({ turnId: "2", prompt: "again" }))

  return [cold, warm, sdk, direct, entity] satisfies ReadonlyArray<Row>
})

const layer = AgentSession.layer().pipe(
  Layer.provideMerge(Cluster.layerTest),
  Layer.provideMerge(Scripted.layer(script)),
  Layer.provideMerge(NodeServices.layer)
)

const rows = await Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(layer)))
const pad = (s: string, n: number) => s.padEnd(n)
log(`${pad("", 28)}first assistant message   result`)
for (const row of rows) {
  log(`${pad(row.name, 28)}${pad(row.firstMessageMs.toFixed(0) + " ms", 26)}${row.resultMs.toFixed(0)} ms`)
}
const [cold, warm, sdk, direct, entity] = rows
log(`warm / cold first message: ${(warm.firstMessageMs / cold.firstMessageMs).toFixed(2)}`)
log(`SDK prewarm / cold first message: ${(sdk.firstMessageMs / cold.firstMessageMs).toFixed(2)}`)
log(`entity / direct turn: ${(entity.resultMs / direct.resultMs).toFixed(2)}`)
process.stdout.write(JSON.stringify({ rows }) + "\n")
