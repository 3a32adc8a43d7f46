/**
 * The worker thread of {@link Stats.transcriptFiles}: counts the files it claims from the shared counter, then
 * posts their figures and ends.
 *
 * @since 0.1.0
 */
import * as NodeWorker from "node:worker_threads"
import * as Stats from "./Stats.ts"

const { next, paths } = NodeWorker.workerData as { readonly paths: ReadonlyArray<string>; readonly next: Int32Array }
NodeWorker.parentPort?.postMessage(Stats.countClaimed(paths, next))
