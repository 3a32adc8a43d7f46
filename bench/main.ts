/**
 * `npm run bench [-- flags]`: compiles the library, generates seeded inputs
 * in a temp dir, and measures every variant in a process of its own (forked
 * workers; warm-up, then rounds in which each variant runs once, the order
 * rotating). Times are medians, goal ratios the median of per-round ratios,
 * peak RSS the variant's own. Then the 64 MiB line, the generated 1 GB
 * stream, the schema step alone and the latency run. Prints tables and the
 * goal ratios; `--json FILE` writes everything for comparison across commits.
 *
 * Flags: --quick (a smoke run: 4 MB inputs, 3 runs, an 8 MiB line, 64 MB stream, 200 latency lines)
 * --size MB (32; the reference run is 105) --runs N (11) --warmup N (2) --big-line MiB (64)
 * --huge MB (1024; 0 skips) --latency-count N (2000) --latency-interval MS (2) --seed N (1)
 * --only a-bytes,b-sdk,... --src (measure src/ as Node strips it, not the compiled build) --json FILE --keep
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as generate from "./generate.ts"
import type { HugeResult } from "./huge.ts"
import type { LatencyResult } from "./latency.ts"
import * as pool from "./pool.ts"
import * as report from "./report.ts"
import { variants } from "./variants.ts"

const argv = process.argv.slice(2)
const quick = argv.includes("--quick")
const flag = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? fallback : argv[i + 1] ?? fallback
}
const num = (name: string, normal: number, smoke: number) => Number(flag(name, String(quick ? smoke : normal)))

const config = {
  quick,
  library: argv.includes("--src") ? "src (TypeScript stripped by Node)" : "compiled build (tsc)",
  sizeMB: num("size", 32, 4),
  runs: num("runs", 11, 3),
  warmup: num("warmup", 2, 1),
  bigLineMiB: num("big-line", 64, 8),
  hugeMB: num("huge", 1024, 64),
  latencyCount: num("latency-count", 2000, 200),
  latencyInterval: num("latency-interval", 2, 2),
  seed: num("seed", 1, 1),
  only: flag("only", "").split(",").filter((s) => s.length > 0)
}
const jsonFile = flag("json", "")
const keep = argv.includes("--keep")
const fromSource = argv.includes("--src")

const here = import.meta.dirname
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-"))
const log = (s: string) => process.stderr.write(s + "\n")

/** Runs a bench script in a fresh Node process and parses its last stdout line. */
const runNode = <A>(script: string, args: ReadonlyArray<string>, nodeFlags: ReadonlyArray<string> = []): A => {
  const out = childProcess.execFileSync(process.execPath, [...nodeFlags, path.join(here, script), ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"]
  })
  const lines = out.trim().split("\n")
  return JSON.parse(lines[lines.length - 1]!) as A
}

const main = async () => {
  const emptyFile = path.join(dir, "empty.jsonl")
  fs.writeFileSync(emptyFile, "")
  const inputs = {
    partial: path.join(dir, "partial.jsonl"),
    plain: path.join(dir, "plain.jsonl"),
    bigLine: path.join(dir, "big-line.jsonl")
  }
  if (!fromSource) {
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
  const sizes = {
    partial: generate.writeTranscript(inputs.partial, { seed: config.seed, bytes: config.sizeMB * 1e6, partial: true }),
    plain: generate.writeTranscript(inputs.plain, { seed: config.seed + 1, bytes: config.sizeMB * 1e6, partial: false }),
    bigLine: generate.writeBigLine(inputs.bigLine, config.bigLineMiB * 1024 * 1024, config.seed + 2)
  }

  const selected = variants.filter((v) => config.only.length === 0 || config.only.includes(v.name))
  const throughput: Array<report.Row> = []
  for (const input of ["partial", "plain"] as const) {
    log(`${input}: ${selected.map((v) => v.name).join(", ")} (${config.warmup} warm-up + ${config.runs} rounds)`)
    const measured = await pool.measure(selected.map((v) => v.name), inputs[input], { ...config, emptyFile })
    measured.forEach((m, i) => throughput.push(report.row(input, selected[i]!.label, m, sizes[input])))
  }

  const bigLine: Array<report.Row> = []
  if (config.bigLineMiB > 0) {
    for (const name of ["a-bytes", "b-sdk", "d-strict"].filter((n) => selected.some((v) => v.name === n))) {
      log(`big line: ${name}`)
      const [m] = await pool.measure([name], inputs.bigLine, { runs: 1, warmup: 0, emptyFile })
      bigLine.push(report.row("big-line", name, m!, sizes.bigLine))
    }
  }

  const huge: Array<HugeResult> = []
  for (const reader of config.hugeMB > 0 ? ["sdk", "lib"] : []) {
    log(`generated stream (${config.hugeMB} MB, not stored): ${reader}`)
    huge.push(runNode<HugeResult>("huge.ts", [reader, String(config.hugeMB), String(config.seed)], ["--expose-gc"]))
  }

  log("schema step alone")
  const schemaStep = runNode<report.SchemaStep>("schemaOnly.ts", [inputs.partial])

  const latency: Array<LatencyResult> = []
  for (const reader of config.latencyCount > 0 ? ["sdk", "lib-spawn", "lib"] : []) {
    log(`latency: ${reader}`)
    latency.push(runNode<LatencyResult>("latency.ts", [reader, inputs.partial, String(config.latencyInterval), String(config.latencyCount)]))
  }

  const results: report.Results = {
    date: new Date().toISOString(),
    machine: report.machine(),
    config,
    inputs: sizes,
    throughput,
    bigLine: { lineBytes: config.bigLineMiB * 1024 * 1024, rows: bigLine },
    huge,
    schemaStep,
    latency
  }
  process.stdout.write(report.render(results))
  if (jsonFile !== "") {
    fs.writeFileSync(jsonFile, JSON.stringify({ ...results, ratios: report.allRatios(results) }, null, 2) + "\n")
    log(`wrote ${jsonFile}`)
  }
}

try {
  await main()
} finally {
  if (!keep) fs.rmSync(dir, { recursive: true, force: true })
}
