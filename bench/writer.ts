/**
 * A stand-in for the CLI: writes a recording to stdout, either all at once
 * (`node bench/writer.ts all FILE`) or one line every few milliseconds
 * (`node bench/writer.ts paced FILE INTERVAL_MS COUNT`). In paced mode the
 * `process.hrtime` of each write (a system-wide monotonic clock on Linux, so
 * comparable with the reader's) goes to stderr as JSON at the end.
 */
import * as fs from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

const [mode, file, intervalArg, countArg] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: writer.ts all|paced FILE [INTERVAL_MS COUNT]")

if (mode === "all") {
  fs.createReadStream(file).pipe(process.stdout)
} else {
  const interval = Number(intervalArg ?? 2)
  const count = Number(countArg ?? 1000)
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).slice(0, count)
  const sent: Array<string> = []
  for (const line of lines) {
    await sleep(interval)
    sent.push(process.hrtime.bigint().toString())
    // A write that cannot complete at once is waited for, as a real producer would.
    if (!process.stdout.write(line + "\n")) await new Promise((resolve) => process.stdout.once("drain", resolve))
  }
  process.stdout.end()
  process.stderr.write(JSON.stringify(sent))
}
