/**
 * The stand-in CLI of variant (f) and the latency run (bench/fake-claude.sh):
 * its path and the environment that tells it what to write.
 */
import * as path from "node:path"

/** The executable, given to `Live.layer({ executable })` or spawned directly. */
export const executable = path.join(import.meta.dirname, "fake-claude.sh")

/** Writes `file` to stdout all at once. */
export const allAtOnce = (file: string): Record<string, string> => ({ ECC_BENCH_RECORDING: file })

/** Writes the first `count` lines of `file`, one every `intervalMs`, and their send times to `sentFile`. */
export const paced = (file: string, intervalMs: number, count: number, sentFile: string): Record<string, string> => ({
  ECC_BENCH_RECORDING: file,
  ECC_BENCH_INTERVAL: String(intervalMs),
  ECC_BENCH_COUNT: String(count),
  ECC_BENCH_SENT: sentFile,
  ECC_BENCH_NODE: process.execPath
})
