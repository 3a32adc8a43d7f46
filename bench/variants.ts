/**
 * Every measured variant: a name, what it stands for, and how to run it once
 * over a file. Library code is imported lazily so a worker process running a
 * baseline never loads Effect (its peak RSS stays its own).
 *
 * Every variant reports the number of input messages it saw, so main.ts can
 * check that all of them read the same input.
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
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

/** The library's decode over a file: strict, strict with an extra stage, or lenient. */
const library = async (file: string, mode: "strict" | "filter" | "partial" | "lenient"): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { mapArray, runCount } = await import("effect/Stream")
  const NodeStream = await import("@effect/platform-node/NodeStream")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const stages = await (await import("./stages.ts")).load()
  const bytes = NodeStream.fromReadable({ evaluate: () => open(file) })
  const count = (stream: Stream.Stream<unknown, unknown>) => Effect.runPromise(runCount(stream))
  // Lenient: the library's own in-band errors, counted like messages (the generated inputs have none).
  if (mode === "lenient") return { messages: await count(bytes.pipe(Decode.messagesLenient())), rejected: 0 }
  const decoded = bytes.pipe(Decode.messages())
  if (mode === "strict") return { messages: await count(decoded), rejected: 0 }
  // A stage emits items or events, not messages: the messages are counted before it, once per chunk.
  let messages = 0
  const counted = decoded.pipe(mapArray((chunk) => {
    messages += chunk.length
    return chunk
  }))
  await count(mode === "filter" ? stages.filter(counted) : stages.partial(counted))
  return { messages, rejected: 0 }
}

/** (f) The path users call: `ClaudeCli.query` on `Live.layer`, the CLI being bench/fake-claude.sh. */
const libraryCli = async (file: string): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { runCount } = await import("effect/Stream")
  const ClaudeCli = await lib<typeof ClaudeCliModule>("ClaudeCli")
  const Live = await lib<typeof LiveModule>("layers/Live")
  const layer = Live.layer({ executable: fakeCli.executable, env: fakeCli.allAtOnce(file) })
  const messages = await Effect.runPromise(runCount(ClaudeCli.query("bench")).pipe(Effect.provide(layer)))
  return { messages, rejected: 0 }
}

/** (f) `Decode.messages` over the stdout of an `effect/process` `ChildProcess`, without the layer. */
const libraryChild = async (file: string): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { runCount } = await import("effect/Stream")
  const NodeServices = await import("@effect/platform-node/NodeServices")
  const ChildProcess = await import("effect/process/ChildProcess")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const program = Effect.gen(function*() {
    const handle = yield* ChildProcess.make(fakeCli.executable, [], { env: fakeCli.allAtOnce(file), extendEnv: true })
    const messages = yield* runCount(handle.stdout.pipe(Decode.messages()))
    const exit = yield* handle.exitCode
    if (exit !== 0) return yield* Effect.die(new Error(`fake CLI exited with ${exit}`))
    return messages
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  return { messages: await Effect.runPromise(program), rejected: 0 }
}

/** (f) The SDK's reader over the stdout of `child_process.spawn`, as the SDK starts the CLI. */
const sdkChild = async (file: string): Promise<Tally> => {
  const child = childProcess.spawn(fakeCli.executable, [], {
    env: { ...process.env, ...fakeCli.allAtOnce(file) },
    stdio: ["ignore", "pipe", "inherit"]
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const tally = await baseline.sdkReadline(child.stdout)
  const code = await exited
  if (code !== 0) throw new Error(`fake CLI exited with ${code}`)
  return tally
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
  { name: "d-strict", label: "(d) Decode.messages (strict)", run: (f) => library(f, "strict") },
  { name: "d-lenient", label: "(d) Decode.messagesLenient", run: (f) => library(f, "lenient") },
  { name: "e-filter", label: "(e) strict + filter", run: (f) => library(f, "filter") },
  { name: "e-partial", label: "(e) strict + partial assembler", run: (f) => library(f, "partial") },
  { name: "f-sdk", label: "(f) child stdout, SDK reader", run: sdkChild },
  { name: "f-lib", label: "(f) child stdout, ChildProcess + Decode", run: libraryChild },
  { name: "f-cli", label: "(f) child stdout, ClaudeCli.query (Live)", run: libraryCli }
]

export const byName = (name: string): Variant => {
  const variant = variants.find((v) => v.name === name)
  if (variant === undefined) throw new Error(`unknown variant ${name}; known: ${variants.map((v) => v.name).join(", ")}`)
  return variant
}
