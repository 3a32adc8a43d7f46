/**
 * Every measured variant: a name, what it stands for, and how to run it once
 * over a file. Library code is imported lazily so a worker process running a
 * baseline never loads Effect (its peak RSS stays its own).
 *
 * Every variant reports the number of input messages it saw, so main.ts can
 * check that all of them read the same input.
 */
import * as fs from "node:fs"
import type { Readable } from "node:stream"
import type * as Stream from "effect/Stream"
import type * as ClaudeCliModule from "../src/ClaudeCli.ts"
import type * as LiveModule from "../src/layers/Live.ts"
import type * as DecodeModule from "../src/stream/Decode.ts"
import * as baseline from "./baseline.ts"
import * as fakeCli from "./fakeCli.ts"
import { lib } from "./lib.ts"

export type Tally = baseline.Tally

export interface Variant {
  readonly name: string
  readonly label: string
  readonly run: (file: string) => Promise<Tally>
}

const open = (file: string) => fs.createReadStream(file)

// A file's bytes in 64 KiB chunks (what the file stream gives), read at the first run and kept for the next: the
// decode with no reading in its time.
const readChunks = new Map<string, ReadonlyArray<Uint8Array>>()
const chunksOf = (file: string): ReadonlyArray<Uint8Array> => {
  const known = readChunks.get(file)
  if (known !== undefined) return known
  const bytes = fs.readFileSync(file)
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += 65536) chunks.push(Buffer.from(bytes.subarray(at, Math.min(bytes.length, at + 65536))))
  readChunks.set(file, chunks)
  return chunks
}

/**
 * The library's decode over a file: strict, strict with an extra stage, or lenient, over Node's file stream;
 * `chunks`, strict over the file's chunks read beforehand; `file`, `Decode.file`. Every mode counts the
 * decoded messages in the same way, once per chunk, before any stage (a stage emits items or events), and
 * drains the rest: an extra stage is the only difference between (d) and (e).
 */
const library = async (file: string, mode: "strict" | "filter" | "partial" | "lenient" | "chunks" | "file"): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { fromIterable, mapArray, runDrain } = await import("effect/Stream")
  const NodeStream = await import("@effect/platform-node/NodeStream")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  // The filter and assembler modules only where they run: (d)'s memory is that of a program that decodes.
  const stages = mode === "filter" || mode === "partial" ? await (await import("./stages.ts")).load() : undefined
  const bytes = mode === "chunks"
    ? fromIterable(chunksOf(file), { chunkSize: 1 })
    : NodeStream.fromReadable({ evaluate: () => open(file) })
  let messages = 0
  const count = <A, E, R>(self: Stream.Stream<A, E, R>) =>
    self.pipe(mapArray((chunk) => {
      messages += chunk.length
      return chunk
    }))
  const run = (): Stream.Stream<unknown, unknown> => {
    // onBadLine "emit": the library's own in-band errors, counted like messages (the generated inputs have none).
    if (mode === "lenient") return count(bytes.pipe(Decode.messages({ onBadLine: "emit" })))
    const decoded = count(bytes.pipe(Decode.messages()))
    return mode === "filter" ? stages!.filter(decoded) : mode === "partial" ? stages!.partial(decoded) : decoded
  }
  if (mode === "file") {
    // The file system's module only where it runs, as the stages above.
    const NodeFileSystem = await import("@effect/platform-node/NodeFileSystem")
    await Effect.runPromise(runDrain(count(Decode.file(file))).pipe(Effect.provide(NodeFileSystem.layer)))
  } else {
    await Effect.runPromise(runDrain(run()))
  }
  return { messages, rejected: 0 }
}

/** (f) The path users call: `ClaudeCli.query` on `Live.layer`, the CLI being bench/fake-claude.sh. */
const libraryCli = async (file: string): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { runCount } = await import("effect/Stream")
  const ClaudeCli = await lib<typeof ClaudeCliModule>("ClaudeCli")
  const Live = await lib<typeof LiveModule>("layers/Live")
  const layer = Live.layer(fakeCli.liveConfig(fakeCli.allAtOnce(file)))
  const messages = await Effect.runPromise(runCount(ClaudeCli.query("bench")).pipe(Effect.provide(layer)))
  return { messages, rejected: 0 }
}

/** (f) `Decode.messages` over the stdout of an `effect/process` `ChildProcess`, without the layer. */
const libraryChild = async (file: string): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { runCount } = await import("effect/Stream")
  const NodeServices = await import("@effect/platform-node/NodeServices")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const program = await fakeCli.readEffectChild(fakeCli.allAtOnce(file), (stdout) => runCount(stdout.pipe(Decode.messages())))
  return { messages: await Effect.runPromise(program.pipe(Effect.provide(NodeServices.layer))), rejected: 0 }
}

/**
 * The stand-in CLI through `child_process.spawn`, as the SDK starts the CLI (or, with `session`, in a session of
 * its own, as `effect/process` does); `read` consumes its stdout.
 */
const nodeChild = async (
  file: string,
  read: (stdout: NodeJS.ReadableStream & Readable) => Promise<Tally>,
  session = false
): Promise<Tally> => {
  const { child, exited } = fakeCli.spawnNode(fakeCli.allAtOnce(file), session)
  const tally = await read(child.stdout)
  await exited
  return tally
}

/**
 * (f) `Decode.messages` over the same Node pipe as the SDK reader, through `NodeStream.fromReadable`:
 * against f-lib, what `effect/process`'s spawner adds (it pipes stdout through a `PassThrough`).
 */
const libraryNodePipe = (file: string, session = false): Promise<Tally> =>
  nodeChild(file, async (stdout) => {
    const Effect = await import("effect/Effect")
    const { runCount } = await import("effect/Stream")
    const NodeStream = await import("@effect/platform-node/NodeStream")
    const Decode = await lib<typeof DecodeModule>("stream/Decode")
    const messages = await Effect.runPromise(runCount(NodeStream.fromReadable({ evaluate: () => stdout }).pipe(Decode.messages())))
    return { messages, rejected: 0 }
  }, session)

/** (f) The Agent SDK's own `query()` over the stand-in CLI: the SDK's reader, its message queue and iterator. */
const sdkQuery = async (file: string): Promise<Tally> => {
  const { query } = await import("@anthropic-ai/claude-agent-sdk")
  let messages = 0
  const options = { pathToClaudeCodeExecutable: fakeCli.executable, env: { ...process.env, ...fakeCli.allAtOnce(file) } }
  for await (const _ of query({ prompt: "bench", options })) messages++
  return { messages, rejected: 0 }
}

export const variants: ReadonlyArray<Variant> = [
  { name: "a-text", label: "(a) split text + JSON.parse", run: (f) => baseline.splitText(open(f)) },
  { name: "a-bytes", label: "(a) split bytes + JSON.parse", run: (f) => baseline.splitBytes(open(f)) },
  { name: "b-sdk", label: "(b) SDK readline + JSON.parse", run: (f) => baseline.sdkReadline(open(f)) },
  {
    name: "c-zod",
    label: "(c) readline + JSON.parse + zod 4",
    run: async (f) => {
      const { validate } = await import("./zodSchemas.ts")
      return baseline.sdkReadline(open(f), validate)
    }
  },
  { name: "d-strict", label: "(d) Decode.messages", run: (f) => library(f, "strict") },
  { name: "d-lenient", label: "(d) Decode.messages, onBadLine emit", run: (f) => library(f, "lenient") },
  // Its peak RSS holds the whole file.
  { name: "d-chunks", label: "(d) Decode.messages, the file's 64 KiB chunks read beforehand", run: (f) => library(f, "chunks") },
  { name: "d-file", label: "(d) Decode.file, the library's reads of a file (256 KiB)", run: (f) => library(f, "file") },
  { name: "e-filter", label: "(e) strict + filter", run: (f) => library(f, "filter") },
  { name: "e-partial", label: "(e) strict + partial assembler", run: (f) => library(f, "partial") },
  { name: "f-sdk", label: "(f) child stdout, SDK reader", run: (f) => nodeChild(f, (stdout) => baseline.sdkReadline(stdout)) },
  { name: "f-node", label: "(f) child stdout, Node pipe + Decode", run: (f) => libraryNodePipe(f) },
  // f-node with the child in a session of its own, as f-lib and f-cli start it: against f-node, what that costs.
  { name: "f-session", label: "(f) child stdout, Node pipe + Decode, child in its own session", run: (f) => libraryNodePipe(f, true) },
  { name: "f-lib", label: "(f) child stdout, ChildProcess + Decode", run: libraryChild },
  { name: "f-cli", label: "(f) child stdout, ClaudeCli.query (Live)", run: libraryCli },
  { name: "f-query", label: "(f) child stdout, the SDK's query()", run: sdkQuery }
]

export const byName = (name: string): Variant => {
  const variant = variants.find((v) => v.name === name)
  if (variant === undefined) throw new Error(`unknown variant ${name}; known: ${variants.map((v) => v.name).join(", ")}`)
  return variant
}
