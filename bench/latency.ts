/**
 * (g) Per-line latency: a child writes one line every few milliseconds, and
 * this process takes the time each decoded message reaches the consumer.
 * Both processes read `process.hrtime` (CLOCK_MONOTONIC, system-wide on
 * Linux). Prints one JSON line with the latencies' percentiles (ms).
 *
 * Readers: `sdk` (readline over `child_process.spawn`), `lib` (effect/process
 * `ChildProcess` + `Decode.messages`, as the library's layers read the CLI) and
 * `lib-spawn` (`Decode.messages` over the same Node pipe as `sdk`).
 *
 * `node bench/latency.ts sdk|lib|lib-spawn FILE INTERVAL_MS COUNT`
 */
import type * as StreamModule from "effect/Stream"
import * as childProcess from "node:child_process"
import * as path from "node:path"
import type * as DecodeModule from "../src/stream/Decode.ts"
import { lib } from "./lib.ts"

export interface LatencyResult {
  readonly reader: string
  readonly count: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

const [reader, file, intervalArg, countArg] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: latency.ts sdk|lib|lib-spawn FILE INTERVAL_MS COUNT")
const args = [path.join(import.meta.dirname, "writer.ts"), "paced", file, intervalArg ?? "2", countArg ?? "1000"]
const received: Array<bigint> = []
let sentJson = ""

// The writer through `child_process.spawn`, as the Agent SDK starts the CLI.
const spawnWriter = () => {
  const child = childProcess.spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    sentJson += s
  })
  return { child, exited: new Promise((resolve) => child.once("close", resolve)) }
}
const stamp = (count: number) => {
  const now = process.hrtime.bigint()
  for (let i = 0; i < count; i++) received.push(now)
}

if (reader === "sdk") {
  const { sdkReadline } = await import("./baseline.ts")
  const { child, exited } = spawnWriter()
  await sdkReadline(child.stdout, () => {
    stamp(1)
    return true
  })
  await exited
} else {
  const Effect = await import("effect/Effect")
  const Stream = await import("effect/Stream")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const consume = <E>(stdout: StreamModule.Stream<Uint8Array, E>) =>
    stdout.pipe(Decode.messages(), Stream.runForEachArray((messages) => Effect.sync(() => stamp(messages.length))))
  if (reader === "lib-spawn") {
    // The decoder alone: Node's pipe read through NodeStream, without effect/process.
    const NodeStream = await import("@effect/platform-node/NodeStream")
    const { child, exited } = spawnWriter()
    await Effect.runPromise(consume(NodeStream.fromReadable({ evaluate: () => child.stdout })))
    await exited
  } else {
    const Fiber = await import("effect/Fiber")
    const NodeServices = await import("@effect/platform-node/NodeServices")
    const ChildProcess = await import("effect/process/ChildProcess")
    const program = Effect.gen(function*() {
      const handle = yield* ChildProcess.make(process.execPath, args)
      const stderr = yield* Stream.mkString(Stream.decodeText(handle.stderr)).pipe(Effect.forkScoped)
      yield* consume(handle.stdout)
      yield* handle.exitCode
      sentJson = yield* Fiber.join(stderr)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
    await Effect.runPromise(program)
  }
}

const sent = (JSON.parse(sentJson) as Array<string>).map(BigInt)
if (sent.length !== received.length) throw new Error(`sent ${sent.length} lines, decoded ${received.length}`)
const latencies = sent.map((t, i) => Number(received[i]! - t) / 1e6).sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!
const result: LatencyResult = {
  reader: reader ?? "lib",
  count: latencies.length,
  p50: at(0.5),
  p90: at(0.9),
  p99: at(0.99),
  max: latencies[latencies.length - 1]!
}
process.stdout.write(JSON.stringify(result) + "\n")
