/**
 * The worker of `StatsThreads.ts`: waits for its share of the files, counts it, then gives their figures back in
 * one message.
 */
import * as Module from "node:module"
import * as WorkerThreads from "node:worker_threads"
import type { Share } from "./StatsThreads.ts"

// As in main.ts, before the modules load: a worker's module loader does not share the main thread's cache.
Module.enableCompileCache()
const StatsThreads = await import("./StatsThreads.ts")

WorkerThreads.parentPort!.once("message", (share: Share) => {
  WorkerThreads.parentPort!.postMessage(StatsThreads.countAsWorker(share))
  WorkerThreads.parentPort!.close()
})
