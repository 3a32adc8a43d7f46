/**
 * What each stage of a path costs, in one process and without pipes: the
 * input is read into 64 KiB chunks beforehand, and each chain runs over them
 * as a stream of one chunk per pull (as a pipe delivers them), except
 * `cli-pipe`. Each step adds
 * one stage to the step before (or to the one it names, against which its
 * "vs base" columns compare it); steps run in rotation for many passes, and the
 * figure of a step is its fastest pass (the least disturbed one on a shared
 * machine; the end-to-end (f) rows of the main run include the pipe and the
 * child).
 *
 * - `cli`: split + `JSON.parse` (the floor), `Decode.messages`,
 *   the Live layer's runner lines over a `FakeSpawner` (spawn, stderr tail,
 *   the process room's line framing, exit status), + the internal decodeRun,
 *   + `Telemetry.observe` (= `ClaudeCli.query` on `Live.make`).
 * - `cli-pipe`: the same through Node's spawner and a real pipe from
 *   bench/fake-claude.sh, the SDK's reader as the reference and `Decode.messages`
 *   over an `effect/process` child's stdout as the second step.
 * - `filter`: `Decode.messages`, + `Item.items`, + `Stream.filter` with the
 *   filter of (e); `Decode.messages` + `Item.select` (the same filter fused
 *   with the flattening, as (e) runs it) and + `Partial.assemble`.
 *
 * `node bench/breakdown.ts cli|cli-pipe|filter [MB] [PASSES] [FILE]` (without FILE: a
 * seeded partial-message transcript of MB). Loads the library from
 * `ECC_BENCH_DIST` when set (see bench/lib.ts), else from src/.
 */
import * as Effect from "effect/Effect"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Readable } from "node:stream"
import type * as CliRunModule from "../src/layers/internal/run.ts"
import type * as LiveModule from "../src/layers/Live.ts"
import type * as ProcessModule from "../src/process/Process.ts"
import type * as DecodeModule from "../src/stream/Decode.ts"
import type * as FakeSpawnerModule from "../src/testing/FakeSpawner.ts"
import { sdkReadline, splitBytes } from "./baseline.ts"
import * as fakeCli from "./fakeCli.ts"
import * as generate from "./generate.ts"
import { lib } from "./lib.ts"
import { median } from "./flags.ts"

interface Input {
  readonly file: string
  /** The file's bytes in 64 KiB chunks. */
  readonly chunks: ReadonlyArray<Uint8Array>
}
/** A step's label, its run, and the step it adds to (the one before it, unless given). */
type Step = readonly [label: string, run: (input: Input) => Promise<number>, base?: number]

const [chainArg = "cli", mbArg = "32", passesArg = "15", fileArg] = process.argv.slice(2)

const Decode = await lib<typeof DecodeModule>("stream/Decode")
const CliRun = await lib<typeof CliRunModule>("layers/internal/run")
const Live = await lib<typeof LiveModule>("layers/Live")
const Process = await lib<typeof ProcessModule>("process/Process")
const FakeSpawner = await lib<typeof FakeSpawnerModule>("testing/FakeSpawner")
const stages = await (await import("./stages.ts")).load()

const count = <A, E>(stream: Stream.Stream<A, E>) => Effect.runPromise(Stream.runCount(stream))
const decoded = (input: Input) => Stream.fromArrays(...input.chunks.map((chunk) => [chunk])).pipe(Decode.messages())

// The stages of `ClaudeCli.query` over a spawner: a fake one whose process writes the chunks (one per read,
// no pipe), or Node's, running bench/fake-claude.sh (a real pipe and child).
const cli = (over: "memory" | "pipe"): ReadonlyArray<Step> => {
  const config = (input: Input) => (over === "pipe" ? fakeCli.liveConfig(fakeCli.allAtOnce(input.file)) : {})
  const run = <A, E>(input: Input, use: (spawner: ChildProcessSpawner["Service"]) => Stream.Stream<A, E>) =>
    Effect.runPromise(
      Effect.flatMap(Effect.service(ChildProcessSpawner), (spawner) => Stream.runCount(use(spawner))).pipe(
        Effect.provide(over === "pipe" ? Process.nodeSpawner : FakeSpawner.layer({ stdout: input.chunks }))
      )
    )
  const runner = (input: Input, spawner: ChildProcessSpawner["Service"]) =>
  Effect.flatMap(CliRun.runnerOf(Live.make(spawner, config(input))), (run) => run("bench"))
  return [
    over === "memory"
      ? ["split bytes + JSON.parse (floor)", async (input) => (await splitBytes(Readable.from(input.chunks))).messages]
      : ["SDK reader over child_process (reference)", async (input) => {
        const { child, exited } = fakeCli.spawnNode(fakeCli.allAtOnce(input.file))
        const { messages } = await sdkReadline(child.stdout)
        await exited
        return messages
      }],
    over === "memory"
      ? ["Decode.messages", (input) => count(decoded(input))]
      : ["ChildProcess stdout + Decode.messages", async (input) => {
        const program = await fakeCli.readEffectChild(fakeCli.allAtOnce(input.file), (stdout) => Stream.runCount(stdout.pipe(Decode.messages())))
        return Effect.runPromise(program.pipe(Effect.provide(Process.nodeSpawner)))
      }],
    ["Live runner lines (process lines)", (input) =>
      run(input, (spawner) => Stream.unwrap(Effect.map(runner(input, spawner), (started) => started.lines)))],
    ["+ decodeRun", (input) =>
      run(input, (spawner) => Stream.unwrap(Effect.map(runner(input, spawner), (started) => CliRun.decodeRun(started, "fail"))))],
    ["+ Telemetry.observe (ClaudeCli.query)", (input) => run(input, (spawner) => Live.make(spawner, config(input)).query("bench"))]
  ]
}

const chains: Record<string, ReadonlyArray<Step>> = {
  cli: cli("memory"),
  "cli-pipe": cli("pipe"),
  filter: [
    ["Decode.messages", (input) => count(decoded(input))],
    ["+ Item.items", (input) => count(stages.items(decoded(input)))],
    ["+ Item.items + Stream.filter", (input) => count(stages.itemsThenFilter(decoded(input)))],
    ["Decode.messages + Item.select (e)", (input) => count(stages.filter(decoded(input))), 0],
    ["Decode.messages + Partial.assemble", (input) => count(stages.partial(decoded(input))), 0]
  ]
}

const chain = chains[chainArg]
if (chain === undefined) throw new Error(`usage: breakdown.ts ${Object.keys(chains).join("|")} [MB] [PASSES] [FILE]`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-breakdown-"))
const file = fileArg ?? path.join(dir, "partial.jsonl")
if (fileArg === undefined) generate.writeTranscript(file, { seed: 1, bytes: Number(mbArg) * 1e6, partial: true })
const bytes = fs.readFileSync(file)
const chunks: Array<Uint8Array> = []
for (let at = 0; at < bytes.length; at += 65536) chunks.push(bytes.subarray(at, Math.min(at + 65536, bytes.length)))
const input: Input = { file, chunks }

const times = chain.map((): Array<number> => [])
const cpuTimes = chain.map((): Array<number> => [])
// What each step emits: messages, lines, items or events.
const emitted = chain.map(() => 0)
const passes = Number(passesArg)
for (let pass = 0; pass < passes + 2; pass++) {
  for (let k = 0; k < chain.length; k++) {
    const i = (k + pass) % chain.length
    const start = performance.now()
    const cpu = process.cpuUsage()
    emitted[i] = await chain[i]![1](input)
    const used = process.cpuUsage(cpu)
    if (pass >= 2) {
      times[i]!.push(performance.now() - start)
      cpuTimes[i]!.push((used.user + used.system) / 1000)
    }
  }
}
const best = times.map((t) => Math.min(...t))
const bestCpu = cpuTimes.map((t) => Math.min(...t))
const lines = bytes.toString("utf8").split("\n").filter((l) => l.length > 0).length
fs.rmSync(dir, { recursive: true, force: true })
process.stdout.write(`${(bytes.length / 1e6).toFixed(1)} MB, ${lines} lines, ${chunks.length} chunks; fastest of ${passes} passes\n`)
const cells = (...c: Array<string>) => c[0]!.padEnd(40) + c.slice(1).map((x) => x.padStart(12)).join("") + "\n"
process.stdout.write(cells("step", "emitted", "best ms", "median ms", "best CPU ms", "us/line", "vs base", "CPU vs base"))
// Against the step this one adds to (see Step).
const extra = (xs: ReadonlyArray<number>, i: number) => {
  if (i === 0) return ""
  const base = xs[chain[i]![2] ?? i - 1]!
  return `${xs[i]! >= base ? "+" : ""}${(((xs[i]! / base) - 1) * 100).toFixed(1)}%`
}
chain.forEach(([label], i) => {
  process.stdout.write(cells(
    label,
    String(emitted[i]),
    best[i]!.toFixed(1),
    median(times[i]!).toFixed(1),
    bestCpu[i]!.toFixed(1),
    ((best[i]! * 1000) / lines).toFixed(2),
    extra(best, i),
    extra(bestCpu, i)
  ))
})
