/**
 * Figures, goal ratios and the printed tables of a bench run.
 */
import * as os from "node:os"
import type { HugeResult } from "./huge.ts"
import type { LatencyResult } from "./latency.ts"
import type { Measurement } from "./pool.ts"

export interface Row {
  readonly input: string
  readonly variant: string
  readonly label: string
  readonly medianMs: number
  /** Each round's time (ms), in round order. */
  readonly times: ReadonlyArray<number>
  readonly minMs: number
  readonly maxMs: number
  readonly mbPerSec: number
  readonly messagesPerSec: number
  readonly messages: number
  readonly peakRssMB: number
  readonly baseRssMB: number
  readonly error?: string | undefined
}

/** The schema step alone (bench/schemaOnly.ts): fastest of ten passes. */
export interface SchemaStep {
  readonly messages: number
  readonly fast: { readonly bestMs: number; readonly perMessageUs: number; readonly failures: number }
  readonly effect: { readonly bestMs: number; readonly perMessageUs: number; readonly failures: number }
  readonly speedup: number
}

export interface Results {
  readonly date: string
  readonly machine: Record<string, string | number>
  readonly config: unknown
  readonly inputs: Record<string, { readonly bytes: number; readonly lines: number }>
  readonly throughput: ReadonlyArray<Row>
  readonly bigLine: { readonly lineBytes: number; readonly rows: ReadonlyArray<Row> }
  readonly huge: ReadonlyArray<HugeResult>
  readonly schemaStep: SchemaStep
  readonly latency: ReadonlyArray<LatencyResult>
}

const MB = 1e6
const median = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export const row = (input: string, label: string, r: Measurement, size: { readonly bytes: number }): Row => {
  const ms = median(r.times)
  return {
    input,
    variant: r.variant,
    label,
    medianMs: ms,
    times: r.times,
    minMs: Math.min(...r.times),
    maxMs: Math.max(...r.times),
    mbPerSec: size.bytes / MB / (ms / 1000),
    messagesPerSec: r.messages / (ms / 1000),
    messages: r.messages,
    peakRssMB: r.peakRss / MB,
    baseRssMB: r.baseRss / MB,
    error: r.error
  }
}

export const machine = (): Record<string, string | number> => ({
  cpu: os.cpus()[0]?.model ?? "unknown",
  cores: os.availableParallelism(),
  memoryGB: Math.round(os.totalmem() / 1e9),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`
})

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length))
const lpad = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s)
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "n/a")
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "n/a")

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === 0 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n") + "\n"
}

/**
 * Goal ratios within one input (throughput ratios: > 1 means the first is
 * faster), each the median over rounds of the ratio within a round.
 */
export const ratios = (rows: ReadonlyArray<Row>, input: string) => {
  const get = (name: string) => rows.find((r) => r.input === input && r.variant === name && r.error === undefined)
  // Time of y over time of x in each round, then the median: the runs of one
  // round are seconds apart, so a change in the machine's load cancels out.
  const perRound = (x: string, y: string) => {
    const a = get(x)
    const b = get(y)
    if (a === undefined || b === undefined || a.times.length !== b.times.length) return NaN
    return median(a.times.map((t, round) => b.times[round]! / t))
  }
  const speed = (x: string, y: string) => perRound(x, y)
  const overhead = (x: string, y: string) => 1 / perRound(x, y) - 1
  const d = get("d-strict")
  const b = get("b-sdk")
  return {
    "d/b (goal >= 1.0, aim 1.2)": speed("d-strict", "b-sdk"),
    "b/a-bytes": speed("b-sdk", "a-bytes"),
    "d-lenient/b": speed("d-lenient", "b-sdk"),
    "d/a-bytes": speed("d-strict", "a-bytes"),
    "d/a-text": speed("d-strict", "a-text"),
    "d/c-zod": speed("d-strict", "c-zod"),
    "f-lib/f-sdk": speed("f-lib", "f-sdk"),
    "e-filter overhead on d (goal < 10%)": overhead("e-filter", "d-strict"),
    "e-partial overhead on d (goal < 15%)": overhead("e-partial", "d-strict"),
    "peak RSS d - b, MB (goal <= 0)": d && b ? d.peakRssMB - b.peakRssMB : NaN
  }
}

/** Every goal figure of a run, for the JSON file. */
export const allRatios = (r: Results) => {
  const big = (name: string) => {
    const x = r.bigLine.rows.find((row) => row.variant === name)
    return x === undefined ? NaN : ((x.peakRssMB - x.baseRssMB) * MB) / r.bigLine.lineBytes
  }
  const growth = (h: HugeResult) => (Math.max(...h.live) - (h.live[0] ?? NaN)) / MB
  return {
    partial: ratios(r.throughput, "partial"),
    plain: ratios(r.throughput, "plain"),
    "big line: d peak - base, x line size (goal < 3)": big("d-strict"),
    "big line: b peak - base, x line size": big("b-sdk"),
    "generated stream: live memory growth after the first 32 MB, MB": Object.fromEntries(r.huge.map((h) => [h.reader, growth(h)])),
    "schema step: fast path speed-up over Effect's decoder": r.schemaStep.speedup,
    "p99 latency ms (goal < 1)": Object.fromEntries(r.latency.map((l) => [l.reader, l.p99]))
  }
}

export const render = (r: Results): string => {
  let out = `\nmachine: ${Object.values(r.machine).join(", ")}\n`
  for (const [name, size] of Object.entries(r.inputs)) {
    out += `input ${name}: ${f1(size.bytes / MB)} MB, ${size.lines} lines\n`
  }
  const rowCells = (x: Row) => [
    x.label,
    x.error ? `ERROR ${x.error.slice(0, 40)}` : f1(x.mbPerSec),
    x.error ? "" : Math.round(x.messagesPerSec).toString(),
    x.error ? "" : f1(x.medianMs),
    x.error ? "" : `${f1(x.minMs)}-${f1(x.maxMs)}`,
    f1(x.peakRssMB),
    f1(x.baseRssMB)
  ]
  const header = ["variant", "MB/s", "msg/s", "median ms", "range ms", "peak RSS MB", "base RSS MB"]
  for (const input of ["partial", "plain"]) {
    const rows = r.throughput.filter((x) => x.input === input)
    if (rows.length === 0) continue
    out += `\n== throughput: ${input} (median of runs, each variant in a fresh process) ==\n`
    out += table(header, rows.map(rowCells))
    out += table(["ratio", "value"], Object.entries(ratios(r.throughput, input)).map(([k, v]) => [k, k.includes("overhead") ? `${f1(v * 100)}%` : f2(v)]))
  }
  if (r.bigLine.rows.length > 0) {
    const limit = (3 * r.bigLine.lineBytes) / MB
    out += `\n== one ${f1(r.bigLine.lineBytes / 1024 / 1024)} MiB line (goal: peak - base < ${f1(limit)} MB) ==\n`
    out += table(
      ["variant", "peak RSS MB", "base RSS MB", "peak - base MB", "x line size", "messages"],
      r.bigLine.rows.map((x) => [
        x.variant,
        f1(x.peakRssMB),
        f1(x.baseRssMB),
        f1(x.peakRssMB - x.baseRssMB),
        f2(((x.peakRssMB - x.baseRssMB) * MB) / r.bigLine.lineBytes),
        x.error ? `ERROR ${x.error.slice(0, 40)}` : String(x.messages)
      ])
    )
  }
  if (r.huge.length > 0) {
    const first = (xs: ReadonlyArray<number>) => f1((xs[0] ?? NaN) / MB)
    const most = (xs: ReadonlyArray<number>) => f1(Math.max(...xs) / MB)
    const last = (xs: ReadonlyArray<number>) => f1((xs[xs.length - 1] ?? NaN) / MB)
    out += `\n== generated transcript, not stored (goal: memory flat as input grows; live = heap + buffers after a full GC) ==\n`
    out += table(
      ["reader", "MB", "messages", "MB/s", "live first", "live max", "live last", "RSS first", "RSS max", "RSS last", "peak RSS"],
      r.huge.map((h) => [
        h.reader,
        f1(h.bytes / MB),
        String(h.messages),
        f1(h.bytes / MB / (h.ms / 1000)),
        first(h.live),
        most(h.live),
        last(h.live),
        first(h.samples),
        most(h.samples),
        last(h.samples),
        f1(h.peakRss / MB)
      ])
    )
  }
  const step = r.schemaStep
  out += `\n== schema step alone, ${step.messages} parsed lines (fastest of 10 passes) ==\n`
  out += table(["decoder", "ms", "us/message", "failures"], [
    ["decodeMessage (fast path)", f1(step.fast.bestMs), f2(step.fast.perMessageUs), String(step.fast.failures)],
    ["Effect's decoder per variant", f1(step.effect.bestMs), f2(step.effect.perMessageUs), String(step.effect.failures)]
  ])
  out += `speed-up: ${f2(step.speedup)}x\n`
  if (r.latency.length > 0) {
    out += `\n== latency, write to decoded message (goal p99 < 1 ms) ==\n`
    out += table(
      ["reader", "lines", "p50 ms", "p90 ms", "p99 ms", "max ms"],
      r.latency.map((l) => [l.reader, String(l.count), f2(l.p50), f2(l.p90), f2(l.p99), f2(l.max)])
    )
  }
  return out
}
