/**
 * Figures, goal ratios, checks and the printed tables of a bench run.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import { bigLineTexts } from "./generate.ts"
import type { HugeResult } from "./huge.ts"
import type { LatencyResult } from "./latency.ts"
import type { Measurement } from "./pool.ts"
import { passes, type SchemaRun } from "./schemaOnly.ts"
import { median } from "./flags.ts"

export interface Row {
  readonly input: string
  readonly variant: string
  readonly label: string
  readonly medianMs: number
  /** Each round's wall-clock time (ms), in round order. */
  readonly times: ReadonlyArray<number>
  /** Each round's CPU time (ms, user + system of the variant's process), in round order. */
  readonly cpuTimes: ReadonlyArray<number>
  readonly medianCpuMs: number
  readonly minMs: number
  readonly maxMs: number
  readonly mbPerSec: number
  /** Input messages per second (a stage's items or events are not counted). */
  readonly messagesPerSec: number
  readonly messages: number
  readonly peakRssMB: number
  readonly baseRssMB: number
  readonly error?: string | undefined
}

/** The schema step alone over one input (bench/schemaOnly.ts), one process per compiler. */
export interface SchemaStep {
  readonly input: string
  readonly runs: ReadonlyArray<SchemaRun>
}

export interface Machine {
  readonly cpu: string
  readonly cpus: number
  readonly mhz: number | undefined
  readonly virtualized: boolean
  readonly memoryGB: number
  readonly node: string
  readonly platform: string
  /** The commit measured, and whether the working tree had changes (`undefined` outside a git checkout). */
  readonly commit: string | undefined
  readonly dirty: boolean | undefined
  /** 1, 5 and 15 minute load averages when the run started and ended (other users of the machine). */
  readonly loadAtStart: ReadonlyArray<number>
  readonly loadAtEnd: ReadonlyArray<number>
}

/** An input built from real captures (bench/realData.ts). */
export interface RealInput {
  readonly bytes: number
  readonly lines: number
  readonly nonAscii: number
  readonly copies: number
  readonly captures: number
}

export interface Results {
  readonly date: string
  readonly durationSeconds: number
  readonly machine: Machine
  readonly config: unknown
  readonly inputs: Record<string, { readonly bytes: number; readonly lines: number }>
  readonly throughput: ReadonlyArray<Row>
  /** The headline: {@link realVariants} over `real-partial` and `real-plain`. */
  readonly real: { readonly inputs: Record<string, RealInput>; readonly rows: ReadonlyArray<Row> }
  /** The cost curve: {@link curveVariants} over inputs of one line size each (`input` is `curve-BYTES`). */
  readonly curve?: { readonly inputs: Record<string, { readonly bytes: number; readonly lines: number }>; readonly rows: ReadonlyArray<Row> }
  /** One row per variant and text of the big line (`input` is `big-line-ascii` or `big-line-mixed`). */
  readonly bigLine: { readonly lineBytes: number; readonly rows: ReadonlyArray<Row> }
  readonly huge: ReadonlyArray<HugeResult>
  readonly schemaStep: ReadonlyArray<SchemaStep>
  readonly latency: ReadonlyArray<LatencyResult>
}

const MB = 1e6

export const row = (input: string, label: string, r: Measurement, size: { readonly bytes: number }): Row => {
  const ms = median(r.times)
  return {
    input,
    variant: r.variant,
    label,
    medianMs: ms,
    times: r.times,
    cpuTimes: r.cpuTimes,
    medianCpuMs: median(r.cpuTimes),
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

/**
 * Rows that did not see `lines` messages (a failed run, or a variant reading
 * something else): each as a sentence, empty when all agree.
 */
export const countMismatches = (rows: ReadonlyArray<Row>, lines: number): Array<string> =>
  rows.flatMap((r) =>
    r.error !== undefined
      ? [`${r.input}, ${r.variant}: failed: ${r.error}`]
      : r.messages !== lines
      ? [`${r.input}, ${r.variant}: saw ${r.messages} messages, the input has ${lines}`]
      : []
  )

const cpuInfo = (): string => {
  try {
    return fs.readFileSync("/proc/cpuinfo", "utf8")
  } catch {
    return ""
  }
}

// The results are for comparing commits: say which one, and whether it had uncommitted changes.
const revision = (): { readonly commit: string | undefined; readonly dirty: boolean | undefined } => {
  const git = (...args: Array<string>) =>
    execFileSync("git", args, { cwd: import.meta.dirname, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  try {
    return { commit: git("rev-parse", "HEAD"), dirty: git("status", "--porcelain") !== "" }
  } catch {
    return { commit: undefined, dirty: undefined }
  }
}

export const machine = (loadAtStart: ReadonlyArray<number>): Machine => {
  const info = cpuInfo()
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, "m").exec(info)?.[1]
  const mhz = Number(field("cpu MHz"))
  return {
    cpu: field("model name") ?? os.cpus()[0]?.model ?? "unknown",
    cpus: os.availableParallelism(),
    mhz: Number.isFinite(mhz) && mhz > 0 ? Math.round(mhz) : undefined,
    virtualized: /^flags\s*:.*\bhypervisor\b/m.test(info),
    memoryGB: Math.round(os.totalmem() / 1e9),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    ...revision(),
    loadAtStart,
    loadAtEnd: os.loadavg()
  }
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length))
const lpad = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s)
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "n/a")
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "n/a")

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === 0 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n") + "\n"
}

/** Which time a ratio compares: wall-clock (throughput) or the process's CPU time (cost). */
export type Clock = "wall" | "cpu"

/**
 * Goal ratios within one input (throughput ratios: > 1 means the first is
 * faster), each the median over rounds of the ratio within a round.
 */
const comparing = (rows: ReadonlyArray<Row>, input: string, clock: Clock) => {
  const get = (name: string) => rows.find((r) => r.input === input && r.variant === name && r.error === undefined)
  const timesOf = (r: Row) => (clock === "wall" ? r.times : r.cpuTimes)
  // Time of y over time of x in each round, then the median: the runs of one
  // round are seconds apart, so a change in the machine's load cancels out.
  const perRound = (x: string, y: string) => {
    const a = get(x)
    const b = get(y)
    if (a === undefined || b === undefined || a.times.length !== b.times.length) return NaN
    const bt = timesOf(b)
    return median(timesOf(a).map((t, round) => bt[round]! / t))
  }
  const rssOver = (x: string, y: string) => {
    const a = get(x)
    const b = get(y)
    return a && b ? a.peakRssMB - b.peakRssMB : NaN
  }
  return { get, perRound, rssOver }
}

export const ratios = (rows: ReadonlyArray<Row>, input: string, clock: Clock = "wall") => {
  const { get, perRound } = comparing(rows, input, clock)
  const overhead = (x: string, y: string) => 1 / perRound(x, y) - 1
  const d = get("d-strict")
  const b = get("b-sdk")
  return {
    "d/b (goal >= 1.0, aim 1.2)": perRound("d-strict", "b-sdk"),
    "b/a-bytes": perRound("b-sdk", "a-bytes"),
    "d-lenient/b": perRound("d-lenient", "b-sdk"),
    "d/a-bytes": perRound("d-strict", "a-bytes"),
    "d/a-text": perRound("d-strict", "a-text"),
    "d/c-zod": perRound("d-strict", "c-zod"),
    "f-node/f-sdk (Decode vs the SDK reader, same pipe)": perRound("f-node", "f-sdk"),
    "f-lib/f-node (effect/process spawner vs a Node pipe)": perRound("f-lib", "f-node"),
    "f-lib/f-sdk": perRound("f-lib", "f-sdk"),
    "f-cli/f-sdk (ClaudeCli.query vs the SDK reader)": perRound("f-cli", "f-sdk"),
    "f-cli/f-lib": perRound("f-cli", "f-lib"),
    "e-filter overhead on d (goal < 10%)": overhead("e-filter", "d-strict"),
    "e-partial overhead on d (goal < 15%)": overhead("e-partial", "d-strict"),
    "peak RSS d - b, MB (goal <= 0)": d && b ? d.peakRssMB - b.peakRssMB : NaN
  }
}

/** The variants measured over the real-shaped inputs. */
export const realVariants: ReadonlyArray<string> = ["a-bytes", "b-sdk", "d-strict", "d-file", "d-chunks", "f-sdk", "f-node", "f-session", "f-lib", "f-query", "f-cli"]

/** A goal of the real-data run: a figure, the least (or most) it may be, and what it compares. */
export interface Goal {
  readonly name: string
  readonly value: number
  readonly goal: number
  /** "min": the figure must be at least the goal; "max": at most. */
  readonly kind: "min" | "max"
  readonly aim?: number | undefined
}

export const reached = (g: Goal): boolean => (g.kind === "min" ? g.value >= g.goal : g.value <= g.goal)

/** The goals over one real-shaped input: throughput ratios (> 1 means the library is faster) and peak RSS. */
export const realGoals = (rows: ReadonlyArray<Row>, input: string, clock: Clock = "wall"): Array<Goal> => {
  const { perRound, rssOver } = comparing(rows, input, clock)
  return [
    { name: "`Decode.messages` / the SDK reader (readline + `JSON.parse`)", value: perRound("d-strict", "b-sdk"), goal: 1.3, aim: 1.6, kind: "min" },
    { name: "`ClaudeCli.query` / the SDK's `query()`, same child", value: perRound("f-cli", "f-query"), goal: 1.2, kind: "min" },
    { name: "peak RSS of `Decode.messages` - the SDK reader's, MB", value: rssOver("d-strict", "b-sdk"), goal: 0, kind: "max" },
    { name: "`Decode.file` / the SDK reader, both reading the file", value: perRound("d-file", "b-sdk"), goal: 1.3, aim: 1.6, kind: "min" },
    { name: "peak RSS of `Decode.file` - the SDK reader's, MB", value: rssOver("d-file", "b-sdk"), goal: 0, kind: "max" }
  ]
}

/** Further ratios of the real-data run, without goals. */
export const realRatios = (rows: ReadonlyArray<Row>, input: string, clock: Clock = "wall") => {
  const { perRound } = comparing(rows, input, clock)
  return {
    "d/a-bytes (split bytes + JSON.parse)": perRound("d-strict", "a-bytes"),
    "b/a-bytes": perRound("b-sdk", "a-bytes"),
    "d-file/d (256 KiB reads, against Node's 64 KiB file stream)": perRound("d-file", "d-strict"),
    "d-chunks/d (the decode alone, against it through the file stream)": perRound("d-chunks", "d-strict"),
    "f-cli/f-sdk (SDK reader on the child)": perRound("f-cli", "f-sdk"),
    "f-query/f-sdk": perRound("f-query", "f-sdk"),
    "f-node/f-sdk (Decode vs the SDK reader, same pipe)": perRound("f-node", "f-sdk"),
    "f-session/f-node (the child in a session of its own)": perRound("f-session", "f-node"),
    "f-lib/f-session (effect/process spawner vs a Node pipe, both in own session)": perRound("f-lib", "f-session"),
    "f-cli/f-lib (what ClaudeCli.query adds to ChildProcess + Decode)": perRound("f-cli", "f-lib")
  }
}

/** The variants of the cost curve. */
export const curveVariants: ReadonlyArray<string> = ["a-bytes", "b-sdk", "d-strict", "d-file"]

/** One line size of the cost curve: milliseconds per MB of each variant, and (d) against (b). */
export interface CurvePoint {
  readonly lineBytes: number
  readonly msPerMB: Record<string, number>
  readonly wall: number
  readonly cpu: number
  /** `Decode.file` (d-file) against (b). */
  readonly fileWall: number
  readonly fileCpu: number
}

/** The cost curve's points, by line size (goal: (d) / (b) >= 1 at every size, (d)'s ms per MB flat). */
export const curvePoints = (curve: NonNullable<Results["curve"]>): Array<CurvePoint> =>
  Object.entries(curve.inputs).map(([input, size]) => {
    const rows = curve.rows.filter((x) => x.input === input && x.error === undefined)
    const wall = comparing(curve.rows, input, "wall")
    const cpu = comparing(curve.rows, input, "cpu")
    return {
      lineBytes: Number(input.replace("curve-", "")),
      msPerMB: Object.fromEntries(rows.map((x) => [x.variant, x.medianMs / (size.bytes / MB)])),
      wall: wall.perRound("d-strict", "b-sdk"),
      cpu: cpu.perRound("d-strict", "b-sdk"),
      fileWall: wall.perRound("d-file", "b-sdk"),
      fileCpu: cpu.perRound("d-file", "b-sdk")
    }
  })

/** A line size for people: 1 KB, 256 KB, 64 MiB. */
export const sizeName = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KB`

/** The real-shaped inputs, in the order they are measured. */
export const realInputs: ReadonlyArray<string> = ["real-partial", "real-plain"]

/** The variants measured over the big lines, each in a fresh process. */
export const bigLineVariants: ReadonlyArray<string> = ["a-bytes", "b-sdk", "d-strict"]

/** Peak RSS above the variant's base, as a multiple of the line's size; NaN when the variant did not run. */
export const bigLineFactor = (r: Results["bigLine"], text: string, variant: string): number => {
  const x = r.rows.find((row) => row.input === `big-line-${text}` && row.variant === variant && row.error === undefined)
  return x === undefined ? NaN : ((x.peakRssMB - x.baseRssMB) * MB) / r.lineBytes
}

/** Every goal figure of a run, for the JSON file. */
export const allRatios = (r: Results) => {
  const growth = (h: HugeResult) => (Math.max(...h.live) - (h.live[0] ?? NaN)) / MB
  const big = (text: string) => Object.fromEntries(bigLineVariants.map((v) => [v, bigLineFactor(r.bigLine, text, v)]))
  const schema = (step: SchemaStep) => {
    const by = (compiler: string) => step.runs.find((run) => run.compiler === compiler)
    const interpreted = by("interpreter")?.effect.bestMs ?? NaN
    return {
      "fast path over Effect's interpreter": interpreted / (by("interpreter")?.fast.bestMs ?? NaN),
      "Effect JIT over Effect's interpreter": interpreted / (by("jit")?.effect.bestMs ?? NaN),
      "Effect AOT over Effect's interpreter": interpreted / (by("aot")?.effect.bestMs ?? NaN),
      "fast path over Effect JIT": (by("jit")?.effect.bestMs ?? NaN) / (by("interpreter")?.fast.bestMs ?? NaN),
      "fast path over Effect AOT": (by("aot")?.effect.bestMs ?? NaN) / (by("interpreter")?.fast.bestMs ?? NaN)
    }
  }
  const goals = (input: string, clock: Clock) =>
    Object.fromEntries(realGoals(r.real.rows, input, clock).map((g) => [g.name, { ...g, reached: reached(g) }]))
  return {
    real: Object.fromEntries(realInputs.map((input) => [input, {
      goals: goals(input, "wall"),
      "goals, CPU time": goals(input, "cpu"),
      ratios: realRatios(r.real.rows, input),
      "ratios, CPU time": realRatios(r.real.rows, input, "cpu")
    }])),
    partial: ratios(r.throughput, "partial"),
    plain: ratios(r.throughput, "plain"),
    "partial, CPU time": ratios(r.throughput, "partial", "cpu"),
    "plain, CPU time": ratios(r.throughput, "plain", "cpu"),
    "big line, peak - base in line sizes (goal: d < 3)": Object.fromEntries(bigLineTexts.map((text) => [text, big(text)])),
    "generated stream: live memory growth after the first 32 MB, MB": Object.fromEntries(r.huge.map((h) => [h.reader, growth(h)])),
    "schema step": Object.fromEntries(r.schemaStep.map((step) => [step.input, schema(step)])),
    "p99 latency ms (goal < 1)": Object.fromEntries(r.latency.map((l) => [l.reader, l.p99]))
  }
}

const ratioCells = (wall: Record<string, number>, cpu: Record<string, number>) => {
  const cell = (k: string, v: number) => (k.includes("overhead") ? `${f1(v * 100)}%` : k.includes("MB") ? f1(v) : f2(v))
  return Object.entries(wall).map(([k, v]) => [k, cell(k, v), k.includes("RSS") ? "" : cell(k, cpu[k]!)])
}

/** One line on a real-shaped input: what it was built from and its make-up. */
export const describeReal = (input: string, size: RealInput): string =>
  `${input === "real-partial" ? "real captures with partial messages" : "real captures without partial messages"} ` +
  `(${f1(size.bytes / MB)} MB, ${size.lines} lines: ${size.captures} captures copied ${size.copies} times with fresh ids, ` +
  `${(size.nonAscii * 100).toFixed(3)}% non-ASCII bytes)`

/** A goal's figure: MB for memory, a ratio otherwise. */
export const goalCell = (g: Goal): string => (g.name.includes("RSS") ? f1(g.value) : f2(g.value))

export const render = (r: Results): string => {
  const m = r.machine
  let out = `\nmachine: ${m.cpu}, ${m.cpus} CPUs${m.mhz === undefined ? "" : ` at ${m.mhz} MHz`}${m.virtualized ? " (virtual machine)" : ""}, ` +
    `${m.memoryGB} GB, ${m.platform}, Node ${m.node}; load average ${m.loadAtStart.map(f2).join(" ")} at start, ` +
    `${m.loadAtEnd.map(f2).join(" ")} at end; ${Math.round(r.durationSeconds)} s\n`
  for (const [name, size] of Object.entries(r.inputs)) {
    out += `input ${name}: ${f1(size.bytes / MB)} MB, ${size.lines} lines\n`
  }
  const rowCells = (x: Row) => [
    x.label,
    x.error ? `ERROR ${x.error.slice(0, 40)}` : f1(x.mbPerSec),
    x.error ? "" : Math.round(x.messagesPerSec).toString(),
    x.error ? "" : f1(x.medianMs),
    x.error ? "" : `${f1(x.minMs)}-${f1(x.maxMs)}`,
    x.error ? "" : f1(x.medianCpuMs),
    f1(x.peakRssMB),
    f1(x.baseRssMB)
  ]
  const header = ["variant", "MB/s", "msg/s", "median ms", "range ms", "CPU ms", "peak RSS MB", "base RSS MB"]
  for (const input of realInputs) {
    const rows = r.real.rows.filter((x) => x.input === input)
    const size = r.real.inputs[input]
    if (rows.length === 0 || size === undefined) continue
    out += `\n== headline: ${describeReal(input, size)} ==\n`
    out += table(header, rows.map(rowCells))
    const cpu = realGoals(r.real.rows, input, "cpu")
    out += table(
      ["goal (median of per-round ratios)", "goal", "wall", "CPU", "reached (wall / CPU)"],
      realGoals(r.real.rows, input).map((g, i) => [
        g.name.replaceAll("`", ""),
        `${g.kind === "min" ? ">=" : "<="} ${g.goal}${g.aim === undefined ? "" : `, aim ${g.aim}`}`,
        goalCell(g),
        g.name.includes("RSS") ? "" : goalCell(cpu[i]!),
        `${reached(g) ? "yes" : "NO"}${g.name.includes("RSS") ? "" : ` / ${reached(cpu[i]!) ? "yes" : "NO"}`}`
      ])
    )
    const cpuRatios = realRatios(r.real.rows, input, "cpu")
    out += table(
      ["other ratios", "wall", "CPU"],
      Object.entries(realRatios(r.real.rows, input)).map(([k, v]) => [k, f2(v), f2(cpuRatios[k as keyof typeof cpuRatios])])
    )
  }
  for (const input of ["partial", "plain"]) {
    const rows = r.throughput.filter((x) => x.input === input)
    if (rows.length === 0) continue
    out += `\n== throughput: ${input} (median of runs, each variant in a fresh process; msg/s counts input messages) ==\n`
    out += table(header, rows.map(rowCells))
    out += table(
      ["ratio (median of per-round ratios)", "wall", "CPU"],
      ratioCells(ratios(r.throughput, input), ratios(r.throughput, input, "cpu"))
    )
  }
  if (r.curve !== undefined && r.curve.rows.length > 0) {
    out += `\n== cost curve: one line size per input (goal: (d) / (b) >= 1 at every size, (d)'s ms per MB flat) ==\n`
    out += table(
      ["line size", ...curveVariants.map((v) => `${v} ms/MB (wall)`), "d/b wall", "d/b CPU", "d-file/b wall", "d-file/b CPU"],
      curvePoints(r.curve).map((p) => [
        sizeName(p.lineBytes),
        ...curveVariants.map((v) => f2(p.msPerMB[v] ?? NaN)),
        f2(p.wall),
        f2(p.cpu),
        f2(p.fileWall),
        f2(p.fileCpu)
      ])
    )
  }
  if (r.bigLine.rows.length > 0) {
    const limit = (3 * r.bigLine.lineBytes) / MB
    out += `\n== one ${f1(r.bigLine.lineBytes / 1024 / 1024)} MiB line, ASCII or mixed text (goal: peak - base < ${f1(limit)} MB) ==\n`
    out += table(
      ["text", "variant", "peak RSS MB", "base RSS MB", "peak - base MB", "x line size", "messages"],
      r.bigLine.rows.map((x) => [
        x.input.replace("big-line-", ""),
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
  for (const step of r.schemaStep) {
    out += `\n== schema step alone, ${step.input} (${step.runs[0]?.messages ?? 0} parsed lines; fastest of ${passes} passes) ==\n`
    out += table(
      ["compiler (one process each)", "fast path us/msg", "Effect us/msg", "Effect / fast", "failures"],
      step.runs.map((run) => [
        run.compiler,
        f2(run.fast.perMessageUs),
        f2(run.effect.perMessageUs),
        f2(run.effect.bestMs / run.fast.bestMs),
        `${run.fast.failures}/${run.effect.failures}`
      ])
    )
  }
  if (r.latency.length > 0) {
    out += `\n== latency, write to decoded message (goal p99 < 1 ms) ==\n`
    out += table(
      ["reader", "lines", "p50 ms", "p90 ms", "p99 ms", "max ms"],
      r.latency.map((l) => [l.reader, String(l.count), f2(l.p50), f2(l.p90), f2(l.p99), f2(l.max)])
    )
  }
  return out
}
