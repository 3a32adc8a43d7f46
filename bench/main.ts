/**
 * `npm run bench [-- flags]`: compiles the library, builds inputs from real
 * captures (bench/realData.ts, the headline) and generates seeded ones in a
 * temp dir, and measures every variant in a process of its own (forked
 * workers; warm-up, then rounds in which each variant runs once, the order
 * rotating). Times are medians, goal ratios the median of per-round ratios,
 * peak RSS the variant's own. Then the 64 MiB lines (ASCII and mixed text),
 * the generated 1 GB stream, the schema step alone and the latency run. Every
 * variant must see every message of its input, or the run fails. Prints tables
 * and the goal ratios; `--json FILE` writes everything for comparison across
 * commits (see bench/args.ts for the flags).
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as args from "./args.ts"
import * as generate from "./generate.ts"
import type { HugeResult } from "./huge.ts"
import { type LatencyResult, readers as latencyReaders } from "./latency.ts"
import * as pool from "./pool.ts"
import * as realData from "./realData.ts"
import * as report from "./report.ts"
import { compilers, type SchemaRun } from "./schemaOnly.ts"
import { variants } from "./variants.ts"

const log = (s: string) => process.stderr.write(s + "\n")

let parsed: args.Config | "help"
try {
  parsed = args.parse(process.argv.slice(2), variants.map((v) => v.name))
} catch (error) {
  if (!(error instanceof args.UsageError)) throw error
  log(`${error.message}\n\n${args.usage}`)
  process.exit(2)
}
if (parsed === "help") {
  process.stdout.write(args.usage + "\n")
  process.exit(0)
}
const config = parsed
const started = performance.now()
const loadAtStart = os.loadavg()
const here = import.meta.dirname
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-"))

/** Runs a bench script in a fresh Node process and parses its last stdout line. */
const runNode = <A>(script: string, scriptArgs: ReadonlyArray<string>, nodeFlags: ReadonlyArray<string> = []): A => {
  const out = childProcess.execFileSync(process.execPath, [...nodeFlags, path.join(here, script), ...scriptArgs], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"]
  })
  const lines = out.trim().split("\n")
  return JSON.parse(lines[lines.length - 1]!) as A
}

const check = (what: string, mismatches: ReadonlyArray<string>) => {
  if (mismatches.length > 0) throw new Error(`${what}: the variants did not all read the whole input:\n  ${mismatches.join("\n  ")}`)
}

// The committed recordings, one after the other, repeated to about `bytes`: real shapes for the schema step.
const writeRecordings = (file: string, bytes: number) => {
  const recorded = path.join(here, "..", "fixtures", "recorded")
  const text = fs.readdirSync(recorded).filter((f) => f.endsWith(".jsonl")).sort()
    .map((f) => fs.readFileSync(path.join(recorded, f), "utf8")).map((t) => (t.endsWith("\n") ? t : t + "\n")).join("")
  fs.writeFileSync(file, text.repeat(Math.max(1, Math.ceil(bytes / Buffer.byteLength(text)))))
}

const main = async (): Promise<report.Results> => {
  const emptyFile = path.join(dir, "empty.jsonl")
  fs.writeFileSync(emptyFile, "")
  const file = (name: string) => path.join(dir, `${name}.jsonl`)
  if (config.dist !== undefined) {
    process.env.ECC_BENCH_DIST = path.resolve(config.dist)
  } else if (!config.fromSource) {
    // The library as users run it: compiled JavaScript (see bench/lib.ts).
    const dist = path.join(dir, "dist")
    log(`compiling src/ into ${dist}`)
    childProcess.execFileSync(
      process.execPath,
      [path.join(here, "..", "node_modules", "typescript", "bin", "tsc"), "-p", path.join(here, "..", "tsconfig.build.json"), "--outDir", dist, "--declaration", "false", "--declarationMap", "false", "--sourceMap", "false"],
      { stdio: "inherit" }
    )
    fs.symlinkSync(path.join(here, "..", "node_modules"), path.join(dir, "node_modules"), "dir")
    process.env.ECC_BENCH_DIST = dist
  }
  log(`generating inputs in ${dir}`)
  const sizes: Record<string, { readonly bytes: number; readonly lines: number }> = {
    partial: generate.writeTranscript(file("partial"), { seed: config.seed, bytes: config.sizeMB * 1e6, partial: true }),
    plain: generate.writeTranscript(file("plain"), { seed: config.seed + 1, bytes: config.sizeMB * 1e6, partial: false })
  }
  if (config.bigLineMiB > 0) {
    for (const text of generate.bigLineTexts) {
      sizes[`big-line-${text}`] = generate.writeBigLine(file(`big-line-${text}`), config.bigLineMiB * 1024 * 1024, config.seed + 2, text)
    }
  }

  const selected = variants.filter((v) => config.only.length === 0 || config.only.includes(v.name))
  // Measures `names` (those selected) over an input written just before, which is then removed: the
  // real-shaped inputs (200 MB each) and the curve's are not kept beside the others longer than needed.
  const measureWritten = async <S extends { readonly bytes: number; readonly lines: number }>(
    input: string,
    names: ReadonlyArray<string>,
    size: S,
    into: { readonly inputs: Record<string, S>; readonly rows: Array<report.Row> }
  ) => {
    const chosen = selected.filter((v) => names.includes(v.name))
    log(`${input}: ${chosen.map((v) => v.name).join(", ")} (${config.warmup} warm-up + ${config.runs} rounds)`)
    const measured = await pool.measure(chosen.map((v) => v.name), file(input), { ...config, emptyFile })
    const rows = measured.map((m, i) => report.row(input, chosen[i]!.label, m, size))
    check(input, report.countMismatches(rows, size.lines))
    into.inputs[input] = size
    into.rows.push(...rows)
    if (!config.keep) fs.rmSync(file(input))
  }
  const measures = (names: ReadonlyArray<string>) => names.some((name) => selected.some((v) => v.name === name))

  const real = { inputs: {} as Record<string, report.RealInput>, rows: [] as Array<report.Row> }
  for (const input of config.realMB > 0 && measures(report.realVariants) ? report.realInputs : []) {
    const size = realData.write(file(input), { bytes: config.realMB * 1e6, partial: input === "real-partial" })
    await measureWritten(input, report.realVariants, size, real)
  }

  const curve = { inputs: {} as Record<string, { readonly bytes: number; readonly lines: number }>, rows: [] as Array<report.Row> }
  for (const lineBytes of config.curveMB > 0 && measures(report.curveVariants) ? realData.curveLineBytes : []) {
    const input = `curve-${lineBytes}`
    await measureWritten(input, report.curveVariants, realData.writeCurve(file(input), lineBytes, config.curveMB * 1e6), curve)
  }

  const throughput: Array<report.Row> = []
  for (const input of ["partial", "plain"] as const) {
    log(`${input}: ${selected.map((v) => v.name).join(", ")} (${config.warmup} warm-up + ${config.runs} rounds)`)
    const measured = await pool.measure(selected.map((v) => v.name), file(input), { ...config, emptyFile })
    const rows = measured.map((m, i) => report.row(input, selected[i]!.label, m, sizes[input]!))
    check(input, report.countMismatches(rows, sizes[input]!.lines))
    throughput.push(...rows)
  }

  const bigLine: Array<report.Row> = []
  const bigLineVariants = report.bigLineVariants.filter((n) => selected.some((v) => v.name === n))
  for (const input of config.bigLineMiB > 0 ? generate.bigLineTexts.map((text) => `big-line-${text}`) : []) {
    for (const name of bigLineVariants) {
      log(`${input}: ${name}`)
      const [m] = await pool.measure([name], file(input), { runs: 1, warmup: 0, emptyFile })
      bigLine.push(report.row(input, name, m!, sizes[input]!))
    }
    check(input, report.countMismatches(bigLine.filter((r) => r.input === input), sizes[input]!.lines))
  }

  const huge: Array<HugeResult> = []
  for (const reader of config.hugeMB > 0 ? ["sdk", "lib"] : []) {
    log(`generated stream (${config.hugeMB} MB, not stored): ${reader}`)
    const result = runNode<HugeResult>("huge.ts", [reader, String(config.hugeMB), String(config.seed)], ["--expose-gc"])
    if (result.messages !== result.lines) check("generated stream", [`${reader}: saw ${result.messages} messages of ${result.lines}`])
    huge.push(result)
  }

  writeRecordings(file("recorded"), config.sizeMB * 1e6 / 4)
  const schemaStep: Array<report.SchemaStep> = []
  for (const input of ["partial", "recorded"]) {
    log(`schema step alone: ${input}`)
    schemaStep.push({ input, runs: compilers.map((compiler) => runNode<SchemaRun>("schemaOnly.ts", [file(input), compiler])) })
  }

  const latency: Array<LatencyResult> = []
  for (const reader of config.latencyCount > 0 ? latencyReaders : []) {
    log(`latency: ${reader}`)
    latency.push(runNode<LatencyResult>("latency.ts", [reader, file("partial"), String(config.latencyInterval), String(config.latencyCount)]))
  }

  return {
    date: new Date().toISOString(),
    durationSeconds: (performance.now() - started) / 1000,
    machine: report.machine(loadAtStart),
    config,
    inputs: sizes,
    throughput,
    real,
    curve,
    bigLine: { lineBytes: config.bigLineMiB * 1024 * 1024, rows: bigLine },
    huge,
    schemaStep,
    latency
  }
}

try {
  // Fail before a long run, not after it, when the JSON file cannot be written.
  if (config.json.to === "file") fs.mkdirSync(path.dirname(path.resolve(config.json.path)), { recursive: true })
  const results = await main()
  const tables = report.render(results)
  const json = JSON.stringify({ ...results, ratios: report.allRatios(results) }, null, 2) + "\n"
  if (config.json.to === "stdout") {
    process.stderr.write(tables)
    process.stdout.write(json)
  } else {
    process.stdout.write(tables)
    if (config.json.to === "file") {
      fs.writeFileSync(config.json.path, json)
      log(`wrote ${config.json.path}`)
    }
  }
} finally {
  if (!config.keep) fs.rmSync(dir, { recursive: true, force: true })
}
