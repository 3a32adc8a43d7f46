/**
 * Warm starts and the cluster's overhead, on the real CLI against the scripted model, in one run:
 *
 * - warm against the SDK: time from asking for a one-turn query to the model's first assistant message, from
 *   a `SparePool` spare (`pool.query`, the prompt sent with the claim), from a new conversation's first `Turn`
 *   on an `AgentSession` entity type with `spares`, and from the Agent SDK's `prewarm()` then `claim()`;
 *   `--rounds` interleaved rounds (default 15), the order of the three rotating, each timed alone: every
 *   spare parked and settled (idle, from the process table), a replacement started by the one before included; the median of the rounds' ratios
 *   against the goal (at most 1.00: as fast as the SDK), for the pool and for the entity; and the CPU time the
 *   parked CLIs used from the request to that message (the claimed one's work, whatever the machine's load did to
 *   the wall clock), against the SDK's the same way;
 * - once each: a cold start (`ClaudeCli.session` then `turn`), and a turn of a session already running,
 *   directly (`session.turn`) and through an entity on a test runner (`Turn`), the difference being the
 *   cluster's overhead.
 *
 * Prints a table on stderr (with the date and the machine) and one JSON line on stdout. With `--trace`, also
 * where each warm start's time went, from this process's sockets (bench/claimTrace.ts): the claim's bytes on the
 * spare's stdin, the first bytes back, the CLI's request to the model, the first assistant message's bytes, the
 * reader; whether a spawn came in between; this process's CPU time.
 *
 * `npm run bench:warm [-- --rounds 15] [--trace]`
 */
import { prewarm } from "@anthropic-ai/claude-agent-sdk"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as AgentSession from "../src/cluster/AgentSession.ts"
import * as Cluster from "../src/cluster/Cluster.ts"
import * as SparePool from "../src/SparePool.ts"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as Scripted from "../src/testing/Scripted.ts"
import * as Script from "../src/testing/Script.ts"
import * as ClaimTrace from "./claimTrace.ts"
import * as Flags from "./flags.ts"

const log = (s: string) => process.stderr.write(s + "\n")

interface Row {
  readonly name: string
  readonly firstMessageMs: number
  readonly resultMs: number
  /** CPU time the parked CLIs (the claimed one included) used from the request to the first assistant message. */
  readonly cliCpuMs?: number | undefined
  /** With `--trace`, where the time to the first assistant message went. */
  readonly stages?: ClaimTrace.Stages | undefined
}

// `--trace`: each warm start's stages, from this process's sockets (bench/claimTrace.ts).
const trace = process.argv.includes("--trace")
if (trace) ClaimTrace.install()

// The model's first output: an assistant message, in the library's types, the SDK's, or an entity's events.
const isAssistant = (item: any): boolean =>
  item?._tag === "AssistantMessage" || item?.type === "assistant" ||
  (item?._tag === "TurnMessage" && item.message._tag === "AssistantMessage")

// Times from `start` to the first assistant message and to the end of `stream`; with `cpu`, the CPU time it
// counts over the same span up to the first assistant message.
const timed = <A, E, R>(name: string, start: number, stream: Stream.Stream<A, E, R>, cpu?: () => number) =>
  Effect.gen(function*() {
    const cpuStart = cpu?.()
    let first: number | undefined
    let cpuFirst: number | undefined
    yield* Stream.runForEach(stream, (item) =>
      Effect.sync(() => {
        if (!isAssistant(item) || first !== undefined) return
        first = performance.now()
        cpuFirst = cpu?.()
        if (trace) ClaimTrace.reached()
      }))
    const cliCpuMs = cpuStart === undefined || cpuFirst === undefined ? undefined : cpuFirst - cpuStart
    return { name, firstMessageMs: (first ?? NaN) - start, resultMs: performance.now() - start, cliCpuMs }
  })

const script = Script.make(Array.from({ length: 8 }, (_, i) => Script.turn(`Answer ${i}.`)))

const rounds = Flags.count("rounds", 15)

// The goal: a warm start at least as fast as the SDK's prewarm to the first assistant message.
const goal = 1

// The CLIs parked with `--await-claim` this process started (claimed ones included, until they end), from the
// process table.
const sparePids = () =>
  fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/).filter((pid) => {
    try {
      return pid !== "" && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("--await-claim")
    } catch {
      return false // Ended meanwhile.
    }
  })

// The spares alive, with the CPU time they used so far (clock ticks).
const spares = () => {
  let count = 0
  let ticks = 0
  for (const pid of sparePids()) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (fields[0] === "Z") continue
      count++
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // Ended meanwhile.
    }
  }
  return { count, ticks }
}

// The CPU time the spares used so far, in milliseconds, to the nanosecond (every thread's `schedstat`): from a
// request to its first assistant message, the work the claimed CLI did for it, whatever the machine's load
// made of the wall-clock time (a replacement started meanwhile counts too).
const sparesCpuMs = () => {
  let ns = 0
  for (const pid of sparePids()) {
    try {
      for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0])
      }
    } catch {
      // Ended meanwhile.
    }
  }
  return ns / 1e6
}

// Waits until exactly `expected` spares are alive and none of them used CPU for half a second: each has
// answered `initialize` and done the loading a CLI goes on with after it, as spares do between requests.
const settled = (expected: number) =>
  Effect.gen(function*() {
    const deadline = performance.now() + 120_000
    let last = spares()
    for (;;) {
      yield* Effect.sleep("500 millis")
      const now = spares()
      if (now.count === expected && last.count === expected && now.ticks === last.ticks) return
      if (performance.now() > deadline) return yield* Effect.die(`spares not settled within 2 minutes: ${JSON.stringify(now)}`)
      last = now
    }
  })

// An entity type whose runner keeps a spare parked for new conversations in the sandbox.
const WarmEntity = AgentSession.make("WarmBench")

// Warm starts against the SDK's prewarm, interleaved: a `SparePool` query and a new conversation on an entity
// type with spares, each against `prewarm()` then `claim()`, in `rounds` rounds whose order rotates.
const againstPrewarm = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const pool = yield* SparePool.make({ size: 1 })
  const entities = yield* WarmEntity.client
  const runs = { warm: [] as Array<Row>, entity: [] as Array<Row>, sdk: [] as Array<Row> }
  const orders = [["warm", "entity", "sdk"], ["sdk", "warm", "entity"], ["entity", "sdk", "warm"]] as const
  for (let round = 0; round < rounds; round++) {
    const spare = yield* Effect.promise(() =>
      prewarm({ options: { pathToClaudeCodeExecutable: sandbox.executable, env: { ...sandbox.env } } })
    )
    const contenders = {
      warm: Effect.suspend(() => timed("warm (SparePool)", performance.now(), pool.query("hello", { cwd: sandbox.cwd }), sparesCpuMs)),
      entity: Effect.suspend(() =>
        timed(
          "entity, new conversation (spare)",
          performance.now(),
          entities(`bench-warm-${round}`).Turn({ turnId: "1", prompt: "hello" }),
          sparesCpuMs
        )
      ).pipe(Effect.tap(() => entities(`bench-warm-${round}`).Close())),
      sdk: Effect.suspend(() =>
        timed(
          "SDK prewarm + claim",
          performance.now(),
          Stream.fromAsyncIterable(spare.claim({ prompt: "hello", options: { cwd: sandbox.cwd } }), (e) => e),
          sparesCpuMs
        )
      ).pipe(Effect.ensuring(Effect.promise(() => spare[Symbol.asyncDispose]())))
    }
    for (const name of orders[round % orders.length]) {
      // Each timed alone: the pool's spare, the entity runner's and the SDK's (until claimed) parked and idle,
      // the replacements of the spares claimed before it included.
      yield* settled(runs.sdk.length > round ? 2 : 3)
      if (trace) ClaimTrace.begin()
      const row: Row = yield* contenders[name]
      runs[name].push(trace ? { ...row, stages: ClaimTrace.end() } : row)
    }
  }
  if ((yield* pool.claimed) !== rounds) return yield* Effect.die(`only ${yield* pool.claimed} of ${rounds} claims were warm`)
  return runs
})

const program = Effect.gen(function*() {
  const cli = yield* ClaudeCli.ClaudeCli

  // Cold: the whole start-up before the first message.
  const coldStart = performance.now()
  const coldSession = yield* cli.session({})
  const cold = yield* timed("cold", coldStart, coldSession.turn("hello"))
  // A running session: a second turn directly.
  const direct = yield* timed("turn, direct session", performance.now(), coldSession.turn("again"))

  const { warm: warmRuns, entity: entityRuns, sdk: sdkRuns } = yield* againstPrewarm

  // Through an entity: the first turn starts its CLI, the second is measured.
  const client = yield* AgentSession.client
  yield* Stream.runDrain(client("bench").Turn({ turnId: "1", prompt: "hello" }))
  const entity = yield* timed("turn, entity (in memory)", performance.now(), client("bench").Turn({ turnId: "2", prompt: "again" }))

  return { cold, direct, entity, warmRuns, entityRuns, sdkRuns }
})

const layer = Layer.mergeAll(
  AgentSession.layer(),
  Layer.unwrap(Effect.map(Scripted.Sandbox, (sandbox) => WarmEntity.layer({ cwd: sandbox.cwd, spares: 1 })))
).pipe(
  Layer.provideMerge(Cluster.layerTest),
  Layer.provideMerge(Scripted.layer(script)),
  Layer.provideMerge(NodeServices.layer)
)

const { cold, direct, entity, warmRuns, entityRuns, sdkRuns } = await Effect.runPromise(
  program.pipe(Effect.scoped, Effect.provide(layer))
)
// Per round, against the SDK's run of the same round.
const against = (runs: ReadonlyArray<Row>) => {
  const ratios = runs.map((run, i) => run.firstMessageMs / sdkRuns[i].firstMessageMs)
  return { ratio: Flags.median(ratios), ratios, met: Flags.median(ratios) <= goal }
}
const warmRatio = against(warmRuns)
const entityRatio = against(entityRuns)
const summary = (name: string, runs: ReadonlyArray<Row>): Row => ({
  name: `${name}, median of ${runs.length}`,
  firstMessageMs: Flags.median(runs.map((r) => r.firstMessageMs)),
  resultMs: Flags.median(runs.map((r) => r.resultMs)),
  cliCpuMs: Flags.median(runs.map((r) => r.cliCpuMs ?? NaN))
})
const warm = summary("warm (SparePool)", warmRuns)
const warmEntity = summary("entity, new conversation", entityRuns)
const sdk = summary("SDK prewarm + claim", sdkRuns)
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.version}, ` +
  `load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`
const pad = (s: string, n: number) => s.padEnd(n)
log(`${new Date().toISOString().slice(0, 10)}, ${machine}`)
log(`${pad("", 40)}first assistant message   result    CLI CPU to first message`)
for (const row of [cold, warm, warmEntity, sdk, direct, entity]) {
  const cpu = row.cliCpuMs === undefined ? "" : `${row.cliCpuMs.toFixed(0)} ms`
  log(
    `${pad(row.name, 40)}${pad(row.firstMessageMs.toFixed(0) + " ms", 26)}${pad(row.resultMs.toFixed(0) + " ms", 10)}${cpu}`
      .trimEnd()
  )
}
for (const [name, { ratio, ratios, met }] of [["warm (SparePool)", warmRatio], ["entity with spares", entityRatio]] as const) {
  log(
    `${name} / SDK prewarm, first assistant message: ${ratio.toFixed(3)} (median of ${rounds} interleaved rounds, ` +
      `range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); goal at most ${goal.toFixed(2)}: ` +
      (met ? "met" : "NOT met")
  )
}
// The same CPU time means the CLIs did the same work: a wall-clock ratio away from 1 is then the machine's
// scheduling (or this library's own time in the process, which the CPU column does not count).
for (const [name, runs] of [["warm (SparePool)", warmRuns], ["entity with spares", entityRuns]] as const) {
  const ratios = runs.map((run, i) => (run.cliCpuMs ?? NaN) / (sdkRuns[i].cliCpuMs ?? NaN))
  log(`${name} / SDK prewarm, CLI CPU time to the first assistant message: ${Flags.median(ratios).toFixed(2)} (median of ${rounds})`)
}
if (trace) {
  const keys = ["claimWritten", "firstOut", "apiRequest", "assistantRead", "reader", "spawnsBefore", "ownCpu"] as const
  log(`stages, median ms from the request (--trace): ${keys.join(", ")}`)
  for (const [name, runs] of [["warm (SparePool)", warmRuns], ["entity with spares", entityRuns], ["SDK prewarm", sdkRuns]] as const) {
    log(pad(name, 22) + keys.map((key) => Flags.median(runs.map((run) => run.stages?.[key] ?? NaN)).toFixed(1).padStart(9)).join(""))
  }
}
log(`warm / cold first message: ${(warm.firstMessageMs / cold.firstMessageMs).toFixed(2)}`)
log(`entity (in memory) / direct turn, one run: ${(entity.resultMs / direct.resultMs).toFixed(2)}`)
process.stdout.write(
  JSON.stringify({
    machine,
    goal,
    warm: warmRatio,
    entity: entityRatio,
    rows: [cold, warm, warmEntity, sdk, direct, entity],
    warmRuns,
    entityRuns,
    sdkRuns
  }) + "\n"
)
