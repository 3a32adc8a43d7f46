/**
 * Memory over a large transcript generated on the fly (never stored): every
 * 32 MB of input, RSS and the live memory (V8 heap plus buffers, right after a
 * full collection) are sampled, so a reader whose memory grows with the input
 * shows it; RSS alone mostly shows the collector's heap sizing. Both readers
 * read the same Node `Readable` of 64 KiB chunks (the library through
 * `NodeStream.fromReadable`, as it reads a pipe), produced asynchronously as
 * a pipe delivers them: over a synchronous generator, one `read()` would run
 * the generator on the spot, and a reader that reads whatever is buffered in
 * a loop (NodeStream does, up to 4096 reads per pull) would pull hundreds of
 * MB at once. Prints one JSON line.
 *
 * `node --expose-gc bench/huge.ts sdk|lib MEGABYTES SEED`
 */
import { Readable } from "node:stream"
import type * as DecodeModule from "../src/stream/Decode.ts"
import * as generate from "./generate.ts"
import { lib } from "./lib.ts"

export interface HugeResult {
  readonly reader: string
  readonly bytes: number
  /** Lines generated; every reader must decode as many messages. */
  readonly lines: number
  readonly messages: number
  readonly ms: number
  /** RSS (bytes) at each 32 MB of input. */
  readonly samples: ReadonlyArray<number>
  /** Live memory (bytes: heap used plus external, after a full collection) at each 32 MB of input. */
  readonly live: ReadonlyArray<number>
  readonly peakRss: number
}

const [reader, megabytesArg, seedArg] = process.argv.slice(2)
const total = Number(megabytesArg ?? 1024) * 1e6
const seed = Number(seedArg ?? 1)

const samples: Array<number> = []
const live: Array<number> = []
const gc = (globalThis as { gc?: () => void }).gc
let bytes = 0
let lines = 0
let nextSample = 32e6

/** Batches of about 64 KiB, like a pipe delivers them. */
async function* chunks(): AsyncGenerator<Uint8Array> {
  let batch: Array<string> = []
  let size = 0
  for (const line of generate.lines({ seed, bytes: total, partial: true })) {
    batch.push(line, "\n")
    lines++
    size += line.length + 1
    if (size >= 65536) {
      const buffer = Buffer.from(batch.join(""), "utf8")
      batch = []
      size = 0
      bytes += buffer.length
      if (bytes >= nextSample) {
        samples.push(process.memoryUsage.rss())
        if (gc !== undefined) {
          gc()
          const usage = process.memoryUsage()
          live.push(usage.heapUsed + usage.external)
        }
        nextSample += 32e6
      }
      yield buffer
    }
  }
  if (size > 0) {
    const buffer = Buffer.from(batch.join(""), "utf8")
    bytes += buffer.length
    yield buffer
  }
}

const input = () => Readable.from(chunks(), { objectMode: false })
const start = performance.now()
let messages: number
if (reader === "sdk") {
  const { sdkReadline } = await import("./baseline.ts")
  messages = (await sdkReadline(input())).messages
} else {
  const Effect = await import("effect/Effect")
  const Stream = await import("effect/Stream")
  const NodeStream = await import("@effect/platform-node/NodeStream")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  messages = await Effect.runPromise(Stream.runCount(NodeStream.fromReadable({ evaluate: input }).pipe(Decode.messages())))
}
const result: HugeResult = {
  reader: reader ?? "lib",
  bytes,
  lines,
  messages,
  ms: performance.now() - start,
  samples,
  live,
  peakRss: process.resourceUsage().maxRSS * 1024
}
process.stdout.write(JSON.stringify(result) + "\n")
