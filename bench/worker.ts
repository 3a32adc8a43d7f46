/**
 * Runs one variant in this (fresh) process: warm-up runs, then measured runs,
 * and prints one JSON line: run times, messages, and RSS figures, so the peak
 * RSS is attributable to this variant alone.
 *
 * `node bench/worker.ts VARIANT FILE RUNS WARMUP EMPTY_FILE`
 */
import { byName } from "./variants.ts"

export interface WorkerResult {
  readonly variant: string
  readonly file: string
  readonly times: ReadonlyArray<number>
  readonly messages: number
  readonly rejected: number
  /** RSS (bytes) once the variant's modules are loaded, before any input is read. */
  readonly baseRss: number
  /** Peak RSS (bytes) of the whole process (`resourceUsage().maxRSS`). */
  readonly peakRss: number
  readonly error?: string | undefined
}

const [name, file, runsArg, warmupArg, emptyFile] = process.argv.slice(2)
if (name === undefined || file === undefined || emptyFile === undefined) {
  throw new Error("usage: worker.ts VARIANT FILE RUNS WARMUP EMPTY_FILE")
}
const runs = Number(runsArg ?? 5)
const warmup = Number(warmupArg ?? 1)

const report = (result: WorkerResult) => process.stdout.write(JSON.stringify(result) + "\n")

const variant = byName(name)
// Load the variant's modules (and let the process settle) before the baseline figure.
await variant.run(emptyFile).catch(() => undefined)
const baseRss = process.memoryUsage.rss()
const times: Array<number> = []
let tally = { messages: 0, rejected: 0 }
try {
  for (let i = 0; i < warmup + runs; i++) {
    const start = performance.now()
    tally = await variant.run(file)
    const ms = performance.now() - start
    if (i >= warmup) times.push(ms)
  }
  report({ variant: name, file, times, ...tally, baseRss, peakRss: process.resourceUsage().maxRSS * 1024 })
} catch (error) {
  report({
    variant: name,
    file,
    times,
    ...tally,
    baseRss,
    peakRss: process.resourceUsage().maxRSS * 1024,
    error: error instanceof Error ? error.message : String(error)
  })
}
