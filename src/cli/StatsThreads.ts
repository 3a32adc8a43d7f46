/**
 * `stats`' transcript files counted on two threads: this one and a worker (`statsWorker.ts`) take the next file
 * from one shared index until none is left, each counting its files apart (Counter.Unsettled); the figures are
 * then settled here in the order of the files, so that the output, the totals and which copy of a message counts
 * are what one thread gives (Stats.transcriptFiles).
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as WorkerThreads from "node:worker_threads"
import * as Counter from "../transcript/internal/counter.ts"
import * as Lines from "../transcript/internal/lines.ts"
import * as Pricing from "../transcript/Pricing.ts"
import type * as Stats from "../transcript/Stats.ts"

/** A file taken: its index in the list and its figures before they are settled (none: not counted here). */
export type Counted = readonly [index: number, unsettled: Counter.Unsettled | undefined]

/**
 * What the worker is given: the files, how to check their lines, and what both threads share: the next index
 * to take (0), and whether the worker began (1: 1) or was told not to (1: 2).
 */
export interface Share {
  readonly paths: ReadonlyArray<string>
  readonly check: Stats.LineCheck
  readonly shared: Int32Array
}

const began = 1
const closed = 2

/**
 * The worker's turn: counts files of `share` until the shared index passes the last, unless this thread had
 * already counted them all (the worker is then told not to begin). `undefined` when it was not to begin.
 */
export const countAsWorker = (share: Share): Array<Counted> | undefined => {
  if (Atomics.compareExchange(share.shared, 1, 0, began) === closed) return undefined
  const counted: Array<Counted> = []
  countShare(share, counted)
  return counted
}

// Counts files until the shared index passes the last. A file that is not a transcript, or that cannot be
// read, gets no figures (the caller reads those the usual way, as with Stats.transcriptFiles), and neither does
// standard input (`-`).
const countShare = (share: Share, into: Array<Counted>): void => {
  const { check, paths, shared } = share
  for (let i = Atomics.add(shared, 0, 1); i < paths.length; i = Atomics.add(shared, 0, 1)) into.push([i, count(paths[i]!, check)])
}

const isDirectory = (path: string): boolean => {
  try {
    return Fs.statSync(path).isDirectory()
  } catch {
    return false
  }
}

const count = (path: string, check: Stats.LineCheck): Counter.Unsettled | undefined => {
  if (path === "-") return undefined
  try {
    return Lines.unsettledFileSync(path, check)
  } catch {
    // Read again the usual way, which says why it cannot be read.
    return undefined
  }
}

// Fewer files than this are counted here alone: a worker (its thread, its modules: about 0.13 s of CPU and
// 30 MB) costs more than it saves on them.
const fewFiles = 32

// The worker's module beside this one, as run from the sources (.ts) or as built (.js: the bundle keeps it as an
// entry of its own in the same directory).
const workerUrl = new URL(`./statsWorker.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`, import.meta.url)

/**
 * A worker that waits for its share, started before the files are listed so that its start overlaps the
 * listing; `undefined` on a machine with one core.
 */
export interface Helper {
  readonly worker: WorkerThreads.Worker
  /** Its figures, `undefined` when it failed or did not begin. */
  readonly counted: Promise<ReadonlyArray<Counted> | undefined>
}

/**
 * Starts a {@link Helper} for `stats` of `args` when they may name many files (a directory among them, or many
 * files), and there are two cores.
 */
export const helper = (args: ReadonlyArray<string>): Helper | undefined => {
  if (Os.availableParallelism() < 2 || (args.length < fewFiles && !args.some(isDirectory))) return undefined
  const worker = new WorkerThreads.Worker(workerUrl, {
    // A smaller young generation: less of the worker's peak memory for the same time (measured).
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
    stdout: false,
    stderr: false
  })
  // Not kept alive by a worker that has nothing to do.
  worker.unref()
  const counted = new Promise<ReadonlyArray<Counted> | undefined>((resolve) => {
    let got: ReadonlyArray<Counted> | undefined
    worker.once("message", (message: ReadonlyArray<Counted> | undefined) => {
      got = message
    })
    worker.once("error", () => undefined)
    worker.once("exit", () => resolve(got))
  })
  return { worker, counted }
}

/**
 * {@link Stats.transcriptFiles} on two threads with a {@link Helper} and many files: the same figures, settled in
 * the order given. The helper ends here.
 */
export const transcriptFiles = async (
  paths: ReadonlyArray<string>,
  seen: Stats.Seen,
  check: Stats.LineCheck,
  helping: Helper | undefined
): Promise<Array<Stats.FileStats | undefined>> => {
  const share: Share = { paths, check, shared: new Int32Array(new SharedArrayBuffer(8)) }
  const helps = helping !== undefined && paths.length >= fewFiles
  if (helps) {
    helping.worker.ref()
    helping.worker.postMessage(share)
  } else {
    Atomics.store(share.shared, 1, closed)
    helping?.worker.terminate()
  }
  const counted: Array<Counted> = []
  countShare(share, counted)
  const unsettled: Array<Counter.Unsettled | undefined> = new Array(paths.length)
  for (const [i, u] of counted) unsettled[i] = u
  if (helps) {
    if (Atomics.compareExchange(share.shared, 1, 0, closed) === 0) {
      // Every file counted here before the worker began: it need not.
      helping.worker.unref()
      helping.worker.terminate()
    } else {
      const theirs = await helping.counted
      if (theirs !== undefined) {
        for (const [i, u] of theirs) unsettled[i] = u
      } else {
        // A worker that failed gave nothing for the files it took: those are counted here.
        const mine = new Set(counted.map(([i]) => i))
        for (let i = 0; i < paths.length; i++) if (!mine.has(i)) unsettled[i] = count(paths[i]!, check)
      }
    }
  }
  return unsettled.map((u) => u === undefined ? undefined : Counter.settle(u, seen, Pricing.costOf))
}
