/**
 * Transcript files counted on two threads: the calling one and a worker, each taking the next file not yet taken,
 * then settled in the order of the files (a message copied into several counts for the first), to the figures
 * `Stats.transcriptFiles` gives on one thread. Parsing is most of the work and a file's count needs no other file,
 * so a second core halves the time of a large set; a small one (counted before the worker would be of use) never
 * starts it.
 */
import * as Module from "node:module"
import * as Threads from "node:worker_threads"
import type * as Stats from "./figures.ts"
import * as Counter from "./counter.ts"
import * as Lines from "./lines.ts"
import * as Pricing from "../Pricing.ts"

// How this module knows it was loaded by a worker of its own (and not by one of a user's).
const workerKind = "effect-claude-code/transcript-stats"

// Counting alone longer than this (ms) starts the worker: it takes a worker about as long to load its modules.
const defaultAloneMs = 30

interface Job {
  readonly kind: typeof workerKind
  readonly paths: ReadonlyArray<string>
  readonly check: Stats.LineCheck
  /** One Int32: the index of the next file to take, shared by both threads. */
  readonly next: SharedArrayBuffer
  readonly port: Threads.MessagePort
}

interface Reply {
  readonly index: number
  readonly unsettled: Counter.Unsettled | undefined
}

// One file: `undefined` where it is not a transcript or cannot be read (as `Stats.transcriptFiles` says).
const countOne = (path: string, check: Stats.LineCheck): Counter.Unsettled | undefined => {
  if (path === "-") return undefined
  try {
    return Lines.unsettledFileSync(path, check)
  } catch {
    return undefined
  }
}

const take = (next: Int32Array, paths: ReadonlyArray<string>): number | undefined => {
  const index = Atomics.add(next, 0, 1)
  return index < paths.length ? index : undefined
}

// The worker's side: files until none is left, each one's count sent as it is done.
const serve = (job: Job): void => {
  const next = new Int32Array(job.next)
  for (let index = take(next, job.paths); index !== undefined; index = take(next, job.paths)) {
    job.port.postMessage({ index, unsettled: countOne(job.paths[index]!, job.check) } satisfies Reply)
  }
  job.port.close()
}

// A young generation smaller than the default: the worker's peak memory is a third lower, its time the same.
// A worker loads this module by its URL (the bundle's chunk in the bin), so it needs no entry file of its own; with
// the compile cache this thread has (the bin enables it), as loading modules is most of a worker's start.
const startWorker = (job: Omit<Job, "kind" | "port">, port: Threads.MessagePort): Threads.Worker => {
  const cache = Module.getCompileCacheDir?.()
  const cached = cache === undefined ? "" : `require("node:module").enableCompileCache(${JSON.stringify(cache)});`
  return new Threads.Worker(`${cached}import(${JSON.stringify(import.meta.url)})`, {
    eval: true,
    workerData: { ...job, kind: workerKind, port } satisfies Job,
    transferList: [port],
    resourceLimits: { maxYoungGenerationSizeMb: 8 }
  })
}

/**
 * The figures of each file, in the order given, as `Stats.transcriptFiles` gives them: `undefined` where a file is
 * not a transcript or could not be read.
 */
export const transcriptFiles = (
  paths: ReadonlyArray<string>,
  seen: Stats.Seen | undefined,
  check: Stats.LineCheck,
  /**
   * How long (ms) this thread counts alone before it starts the worker; `"worker"`: the worker counts every file,
   * started at once, and a file it does not report is `undefined` (a test of its side).
   */
  aloneMs: number | "worker" = defaultAloneMs
): Promise<Array<Stats.FileStats | undefined>> => {
  const counted = new Array<Counter.Unsettled | undefined>(paths.length)
  const done = new Uint8Array(paths.length)
  const next = new Int32Array(new SharedArrayBuffer(4))
  const settled = () => {
    // Files the worker took and never reported (it died): counted here, unless the worker is under test.
    if (aloneMs !== "worker") for (let i = 0; i < paths.length; i++) if (done[i] === 0) counted[i] = countOne(paths[i]!, check)
    return counted.map((u) => u === undefined ? undefined : Counter.settle(u, seen, Pricing.costOf))
  }
  let worker: { readonly thread: Threads.Worker; readonly port: Threads.MessagePort } | undefined
  const start = () => {
    const channel = new Threads.MessageChannel()
    try {
      worker = { thread: startWorker({ paths, check, next: next.buffer as SharedArrayBuffer }, channel.port2), port: channel.port1 }
    } catch {
      // No worker to be had (a limit on threads): this thread counts every file.
      channel.port1.close()
    }
  }
  if (aloneMs === "worker") start()
  const started = performance.now()
  for (let index = worker === undefined ? take(next, paths) : undefined; index !== undefined; index = take(next, paths)) {
    counted[index] = countOne(paths[index]!, check)
    done[index] = 1
    if (worker === undefined && index + 1 < paths.length && performance.now() - started >= (aloneMs as number)) start()
  }
  if (worker === undefined) return Promise.resolve(settled())
  const { port, thread } = worker
  const receive = (reply: Reply) => {
    counted[reply.index] = reply.unsettled
    done[reply.index] = 1
  }
  return new Promise((resolve) => {
    port.on("message", receive)
    // An error ends the worker: its files not reported are counted here (in `settled`).
    thread.on("error", () => {})
    thread.once("exit", () => {
      for (let m = Threads.receiveMessageOnPort(port); m !== undefined; m = Threads.receiveMessageOnPort(port)) receive(m.message)
      port.close()
      resolve(settled())
    })
  })
}

if (!Threads.isMainThread && (Threads.workerData as Partial<Job> | null)?.kind === workerKind) serve(Threads.workerData as Job)
