/**
 * (g) Per-line latency: a child writes one line every few milliseconds, and
 * this process takes the time each decoded message reaches the consumer.
 * Both processes read `process.hrtime` (CLOCK_MONOTONIC, system-wide on
 * Linux). Prints one JSON line with the latencies' percentiles (ms).
 *
 * `node bench/latency.ts sdk|lib FILE INTERVAL_MS COUNT`
 */
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
if (file === undefined) throw new Error("usage: latency.ts sdk|lib FILE INTERVAL_MS COUNT")
const args = [path.join(import.meta.dirname, "writer.ts"), "paced", file, intervalArg ?? "2", countArg ?? "1000"]
const received: Array<bigint> = []
let sentJson = ""

if (reader === "sdk") {
  const { sdkReadline } = await import("./baseline.ts")
  const child = childProcess.spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    sentJson += s
  })
  const exited = new Promise((resolve) => child.once("close", resolve))
  await sdkReadline(child.stdout, () => {
    received.push(process.hrtime.bigint())
    return true
  })
  await exited
} else {
  const Effect = await import("effect/Effect")
  const Fiber = await import("effect/Fiber")
  const Stream = await import("effect/Stream")
  const NodeServices = await import("@effect/platform-node/NodeServices")
  const ChildProcess = await import("effect/process/ChildProcess")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const program = Effect.gen(function*() {
    const handle = yield* ChildProcess.make(process.execPath, args)
    const stderr = yield* Stream.mkString(Stream.decodeText(handle.stderr)).pipe(Effect.forkScoped)
    yield* handle.stdout.pipe(
      Decode.messages(),
      Stream.runForEachArray((messages) =>
        Effect.sync(() => {
          const now = process.hrtime.bigint()
          for (let i = 0; i < messages.length; i++) received.push(now)
        })
      )
    )
    yield* handle.exitCode
    sentJson = yield* Fiber.join(stderr)
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  await Effect.runPromise(program)
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
