/**
 * Every measured variant: a name, what it stands for, and how to run it once
 * over a file. Library code is imported lazily so a worker process running a
 * baseline never loads Effect (its peak RSS stays its own).
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Stream from "effect/Stream"
import type * as DecodeModule from "../src/stream/Decode.ts"
import * as baseline from "./baseline.ts"
import { lib } from "./lib.ts"

export type Tally = baseline.Tally

export interface Variant {
  readonly name: string
  readonly label: string
  readonly run: (file: string) => Promise<Tally>
}

const writer = path.join(import.meta.dirname, "writer.ts")
const open = (file: string) => fs.createReadStream(file)

/** The library's decode over a file, with an optional extra stage. */
const library = async (
  file: string,
  mode: "strict" | "lenient",
  stage: "none" | "filter" | "partial"
): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { filter: streamFilter, runCount } = await import("effect/Stream")
  const NodeStream = await import("@effect/platform-node/NodeStream")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const stages = await (await import("./stages.ts")).load()
  const bytes = NodeStream.fromReadable({ evaluate: () => open(file) })
  const decoded = mode === "strict"
    ? bytes.pipe(Decode.messages())
    : bytes.pipe(Decode.messagesLenient(), streamFilter((m) => !Decode.isDecodeError(m)))
  const staged: Stream.Stream<unknown, unknown> = stage === "none"
    ? decoded
    : stage === "filter"
    ? stages.filter(decoded)
    : stages.partial(decoded)
  const messages = await Effect.runPromise(runCount(staged))
  return { messages, rejected: 0 }
}

/** (f) The library reading a child process's stdout through `effect/process`. */
const libraryChild = async (file: string): Promise<Tally> => {
  const Effect = await import("effect/Effect")
  const { runCount } = await import("effect/Stream")
  const NodeServices = await import("@effect/platform-node/NodeServices")
  const ChildProcess = await import("effect/process/ChildProcess")
  const Decode = await lib<typeof DecodeModule>("stream/Decode")
  const program = Effect.gen(function*() {
    const handle = yield* ChildProcess.make(process.execPath, [writer, "all", file])
    const messages = yield* runCount(handle.stdout.pipe(Decode.messages()))
    const exit = yield* handle.exitCode
    if (exit !== 0) return yield* Effect.die(new Error(`writer exited with ${exit}`))
    return messages
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  return { messages: await Effect.runPromise(program), rejected: 0 }
}

/** (f) The SDK's reader over a child process's stdout (`child_process.spawn`, as the SDK does). */
const sdkChild = async (file: string): Promise<Tally> => {
  const child = childProcess.spawn(process.execPath, [writer, "all", file], { stdio: ["ignore", "pipe", "inherit"] })
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const tally = await baseline.sdkReadline(child.stdout)
  const code = await exited
  if (code !== 0) throw new Error(`writer exited with ${code}`)
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
  { name: "d-strict", label: "(d) Decode.messages (strict)", run: (f) => library(f, "strict", "none") },
  { name: "d-lenient", label: "(d) Decode.messagesLenient", run: (f) => library(f, "lenient", "none") },
  { name: "e-filter", label: "(e) strict + filter", run: (f) => library(f, "strict", "filter") },
  { name: "e-partial", label: "(e) strict + partial assembler", run: (f) => library(f, "strict", "partial") },
  { name: "f-sdk", label: "(f) child stdout, SDK reader", run: sdkChild },
  { name: "f-lib", label: "(f) child stdout, ChildProcess + Decode", run: libraryChild }
]

export const byName = (name: string): Variant => {
  const variant = variants.find((v) => v.name === name)
  if (variant === undefined) throw new Error(`unknown variant ${name}; known: ${variants.map((v) => v.name).join(", ")}`)
  return variant
}
