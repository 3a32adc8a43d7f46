/**
 * The paced writer of the latency run (g), started by bench/fake-claude.sh:
 * writes the first `ECC_BENCH_COUNT` lines of `ECC_BENCH_RECORDING` to stdout,
 * then, as a CLI run ends, the next `result` line (unless the last written
 * was one), one every `ECC_BENCH_INTERVAL` ms, and at the end the `process.hrtime` of
 * each write (CLOCK_MONOTONIC, system-wide on Linux, so comparable with the
 * reader's) as a JSON array to the file `ECC_BENCH_SENT`. A file, not stderr:
 * the library keeps only a bounded tail of the CLI's stderr.
 */
import * as fs from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`writer.ts: ${name} is not set`)
  return value
}
const interval = Number(env("ECC_BENCH_INTERVAL"))
const count = Number(env("ECC_BENCH_COUNT"))
const all = fs.readFileSync(env("ECC_BENCH_RECORDING"), "utf8").split("\n").filter((l) => l.length > 0)
const isResult = (line: string) => (JSON.parse(line) as { type?: unknown }).type === "result"
const lines = all.slice(0, count)
const result = all.slice(count).find(isResult)
if (lines.length > 0 && !isResult(lines[lines.length - 1]!) && result !== undefined) lines.push(result)
const sent: Array<string> = []
for (const line of lines) {
  await sleep(interval)
  sent.push(process.hrtime.bigint().toString())
  // A write that cannot complete at once is waited for, as a real producer would.
  if (!process.stdout.write(line + "\n")) await new Promise((resolve) => process.stdout.once("drain", resolve))
}
fs.writeFileSync(env("ECC_BENCH_SENT"), JSON.stringify(sent))
process.stdout.end()
