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
  readonly ms: number
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
  variant.run(request.run).then(
    (tally) => send({ ms: performance.now() - start, ...tally }),
    (error: unknown) =>
      send({ ms: NaN, messages: 0, rejected: 0, error: error instanceof Error ? error.message : String(error) })
  )
})
// The parent closing the channel ends this process.
process.on("disconnect", () => process.exit(0))
send({ ready: true })
