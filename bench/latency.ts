/**
 * (g) Per-line latency: the stand-in CLI (bench/fake-claude.sh, paced) writes
 * one line every few milliseconds, and this process takes the time each
 * decoded message reaches the consumer. Both processes read `process.hrtime`
 * (CLOCK_MONOTONIC, system-wide on Linux). Prints one JSON line with the
 * latencies' percentiles (ms).
 *
 * Readers: `sdk` (readline over `child_process.spawn`, as the Agent SDK),
 * `lib-spawn` (`Decode.messages` over the same Node pipe), `lib` (effect/process
 * `ChildProcess` + `Decode.messages`) and `cli` (`ClaudeCli.query` on
 * `Live.layer`, the path users call).
 *
 * `node bench/latency.ts sdk|lib-spawn|lib|cli FILE INTERVAL_MS COUNT`
 */
import type * as StreamModule from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as ClaudeCliModule from "../src/ClaudeCli.ts"
import type * as LiveModule from "../src/layers/Live.ts"
import type * as DecodeModule from "../src/stream/Decode.ts"
import * as fakeCli from "./fakeCli.ts"
import { lib } from "./lib.ts"

export interface LatencyResult {
  readonly reader: string
  readonly count: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export const readers = ["sdk", "lib-spawn", "lib", "cli"] as const

type Reader = typeof readers[number]

const main = async (): Promise<void> => {
  const [reader, file, intervalArg, countArg] = process.argv.slice(2)
  if (file === undefined || !readers.includes(reader as Reader)) {
    throw new Error(`usage: latency.ts ${readers.join("|")} FILE INTERVAL_MS COUNT`)
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-latency-"))
  const sentFile = path.join(dir, "sent.json")
  const env = fakeCli.paced(file, Number(intervalArg ?? 2), Number(countArg ?? 1000), sentFile)
  const received: Array<bigint> = []

  const stamp = (count: number) => {
    const now = process.hrtime.bigint()
    for (let i = 0; i < count; i++) received.push(now)
  }

  try {
    if (reader === "sdk") {
      const { sdkReadline } = await import("./baseline.ts")
      const { child, exited } = fakeCli.spawnNode(env)
      await sdkReadline(child.stdout, () => {
        stamp(1)
        return true
      })
      await exited
    } else {
      const Effect = await import("effect/Effect")
      const Stream = await import("effect/Stream")
      const consume = <A, E>(messages: StreamModule.Stream<A, E>) =>
        Stream.runForEachArray(messages, (chunk) => Effect.sync(() => stamp(chunk.length)))
      if (reader === "cli") {
        const ClaudeCli = await lib<typeof ClaudeCliModule>("ClaudeCli")
        const Live = await lib<typeof LiveModule>("layers/Live")
        await Effect.runPromise(consume(ClaudeCli.query("bench").pipe(Stream.provide(Live.layer(fakeCli.liveConfig(env))))))
      } else {
        const Decode = await lib<typeof DecodeModule>("stream/Decode")
        if (reader === "lib-spawn") {
          // The decoder alone: Node's pipe read through NodeStream, without effect/process.
          const NodeStream = await import("@effect/platform-node/NodeStream")
          const { child, exited } = fakeCli.spawnNode(env)
          await Effect.runPromise(consume(NodeStream.fromReadable({ evaluate: () => child.stdout }).pipe(Decode.messages())))
          await exited
        } else {
          const NodeServices = await import("@effect/platform-node/NodeServices")
          const program = await fakeCli.readEffectChild(env, (stdout) => consume(stdout.pipe(Decode.messages())))
          await Effect.runPromise(program.pipe(Effect.provide(NodeServices.layer)))
        }
      }
    }
    const sent = (JSON.parse(fs.readFileSync(sentFile, "utf8")) as Array<string>).map(BigInt)
    if (sent.length !== received.length) throw new Error(`sent ${sent.length} lines, decoded ${received.length}`)
    const latencies = sent.map((t, i) => Number(received[i]! - t) / 1e6).sort((a, b) => a - b)
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!
    const result: LatencyResult = {
      reader,
      count: latencies.length,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: latencies[latencies.length - 1]!
    }
    process.stdout.write(JSON.stringify(result) + "\n")
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await main()
