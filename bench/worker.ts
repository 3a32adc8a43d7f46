/**
 * Serves one variant in this (fresh) process, so its peak RSS is its own:
 * forked by main.ts, it loads the variant, reports its base RSS, then runs the
 * variant over a file whenever asked and answers with the time taken. The
 * parent interleaves the runs of all variants, so a change in the machine's
 * load hits them alike.
 *
 * `fork("bench/worker.ts", [VARIANT, EMPTY_FILE])`; messages in: {@link Request}, out: {@link Reply}.
 */
import { byName } from "./variants.ts"

/** What the parent asks. */
export type Request = { readonly run: string } | { readonly stats: true }

/** One run of the variant. */
export interface RunReply {
  /** Wall-clock time of the run. */
  readonly ms: number
  /**
   * CPU time (user + system, all threads: collector, libuv pool) the process
   * spent on the run: what the run costs, and much less disturbed than wall
   * time when other processes compete for the cores. A child's CPU is not in it.
   */
  readonly cpuMs: number
  readonly messages: number
  readonly rejected: number
  readonly error?: string | undefined
}

/** RSS figures of this process. */
export interface StatsReply {
  /** RSS (bytes) once the variant's modules are loaded, before any input is read. */
  readonly baseRss: number
  /** Peak RSS (bytes) of the whole process (`resourceUsage().maxRSS`). */
  readonly peakRss: number
}

export type Reply = { readonly ready: true } | RunReply | StatsReply

const [name, emptyFile] = process.argv.slice(2)
if (name === undefined || emptyFile === undefined || process.send === undefined) {
  throw new Error("fork bench/worker.ts with [VARIANT, EMPTY_FILE] and an IPC channel")
}
const send = (reply: Reply) => process.send!(reply)

const variant = byName(name)
// Load the variant's modules (and let the process settle) before the base figure.
await variant.run(emptyFile).catch(() => undefined)
const baseRss = process.memoryUsage.rss()

process.on("message", (request: Request) => {
  if ("stats" in request) {
    send({ baseRss, peakRss: process.resourceUsage().maxRSS * 1024 })
    return
  }
  const start = performance.now()
  const cpu = process.cpuUsage()
  const cpuMs = () => {
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / 1000
  }
  variant.run(request.run).then(
    (tally) => send({ ms: performance.now() - start, cpuMs: cpuMs(), ...tally }),
    (error: unknown) =>
      send({ ms: NaN, cpuMs: NaN, messages: 0, rejected: 0, error: error instanceof Error ? error.message : String(error) })
  )
})
// The parent closing the channel ends this process.
process.on("disconnect", () => process.exit(0))
send({ ready: true })
