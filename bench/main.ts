/**
 * `npm run bench [-- flags]`: generates seeded inputs in a temp dir, runs every
 * variant in a fresh worker process (warm-up, then the median of several runs;
 * peak RSS attributable to the variant), then the memory checks and the
 * latency run; prints tables and the goal ratios, and with `--json FILE`
 * writes everything for comparison across commits.
 *
 * Flags: --size MB (32; the reference run is 105) --runs N (5) --warmup N (1)
 * --big-line MiB (64) --huge MB (1024; 0 skips) --latency-count N (2000)
 * --latency-interval MS (2) --seed N (1) --only a-bytes,b-sdk,... --json FILE --keep
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as generate from "./generate.ts"
import type { HugeResult } from "./huge.ts"
import type { LatencyResult } from "./latency.ts"
import * as report from "./report.ts"
import { variants } from "./variants.ts"
import type { WorkerResult } from "./worker.ts"

const argv = process.argv.slice(2)
const flag = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? fallback : argv[i + 1] ?? fallback
}
const num = (name: string, fallback: number) => Number(flag(name, String(fallback)))

const config = {
  sizeMB: num("size", 32),
  runs: num("runs", 5),
  warmup: num("warmup", 1),
  bigLineMiB: num("big-line", 64),
  hugeMB: num("huge", 1024),
  latencyCount: num("latency-count", 2000),
  latencyInterval: num("latency-interval", 2),
  seed: num("seed", 1),
  only: flag("only", "").split(",").filter((s) => s.length > 0)
}
const jsonFile = flag("json", "")
const keep = argv.includes("--keep")

const here = import.meta.dirname
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-"))
const log = (s: string) => process.stderr.write(s + "\n")

/** Runs a bench script in a fresh Node process and parses its last stdout line. */
const runNode = <A>(script: string, args: ReadonlyArray<string>): A => {
  const out = childProcess.execFileSync(process.execPath, [path.join(here, script), ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"]
  })
  const lines = out.trim().split("\n")
  return JSON.parse(lines[lines.length - 1]!) as A
}

const main = () => {
  const empty = path.join(dir, "empty.jsonl")
  fs.writeFileSync(empty, "")
  const inputs = {
    partial: path.join(dir, "partial.jsonl"),
    plain: path.join(dir, "plain.jsonl"),
    bigLine: path.join(dir, "big-line.jsonl")
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
    for (const variant of selected) {
      log(`${input}: ${variant.name}`)
      const r = runNode<WorkerResult>("worker.ts", [variant.name, inputs[input], String(config.runs), String(config.warmup), empty])
      throughput.push(report.row(input, variant.label, r, sizes[input]))
    }
  }

  const memoryVariants = ["a-bytes", "b-sdk", "d-strict"].filter((n) => selected.some((v) => v.name === n))
  const bigLine = memoryVariants.map((name) => {
    log(`big line: ${name}`)
    const r = runNode<WorkerResult>("worker.ts", [name, inputs.bigLine, "1", "0", empty])
    return report.row("big-line", name, r, sizes.bigLine)
  })

  const huge: Array<HugeResult> = []
  if (config.hugeMB > 0) {
    for (const reader of ["sdk", "lib"]) {
      log(`huge (${config.hugeMB} MB, generated): ${reader}`)
      huge.push(runNode<HugeResult>("huge.ts", [reader, String(config.hugeMB), String(config.seed)]))
    }
  }

  const latency: Array<LatencyResult> = []
  if (config.latencyCount > 0) {
    for (const reader of ["sdk", "lib"]) {
      log(`latency: ${reader}`)
      latency.push(runNode<LatencyResult>("latency.ts", [reader, inputs.partial, String(config.latencyInterval), String(config.latencyCount)]))
    }
  }

  const results: report.Results = {
    date: new Date().toISOString(),
    machine: report.machine(),
    config,
    inputs: sizes,
    throughput,
    bigLine: { lineBytes: config.bigLineMiB * 1024 * 1024, rows: bigLine },
    huge,
    latency
  }
  process.stdout.write(report.render(results))
  if (jsonFile !== "") {
    fs.writeFileSync(jsonFile, JSON.stringify(results, null, 2) + "\n")
    log(`wrote ${jsonFile}`)
  }
}

try {
  main()
} finally {
  if (!keep) fs.rmSync(dir, { recursive: true, force: true })
}
