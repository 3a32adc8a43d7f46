/**
 * The worker thread that owns a `node:sqlite` connection, so that its synchronous calls never block the
 * event loop: a statement that waits for another process's lock delays itself only, not the timers, fibers
 * and sockets of this process.
 *
 * The connection has no busy timeout of its own: a statement that finds the database locked (`SQLITE_BUSY`)
 * is tried again every few milliseconds, for up to {@link busyMillis}, sleeping on a shared word that the
 * main thread sets to the statement's id to cancel it (a waiting statement that is interrupted stops within
 * one sleep, and is answered as cancelled).
 *
 * @internal
 */

/** How long a statement waits for a lock another connection holds, as `busy_timeout` did. */
export const busyMillis = 5_000

/** What the main thread sends: a statement, or the end. */
export type Request =
  | {
    readonly _tag: "Run"
    readonly id: number
    readonly sql: string
    readonly params: ReadonlyArray<unknown>
    readonly arrays: boolean
    readonly safeIntegers: boolean
  }
  | { readonly _tag: "Close" }

/** What the worker answers: the connection opened (or not), a statement's rows, or its error. */
export type Reply =
  | { readonly _tag: "Opened" }
  | { readonly _tag: "Rows"; readonly id: number; readonly rows: ReadonlyArray<unknown> }
  | { readonly _tag: "Failed"; readonly id: number; readonly message: string; readonly errcode?: number | undefined; readonly cancelled: boolean }

/** A statement's answer. */
export type Answer = Exclude<Reply, { readonly _tag: "Opened" }>

/**
 * The worker's source, run with `eval` (CommonJS): no file to find next to a compiled module. `workerData`
 * is `{ filename, cancel }`, `cancel` an `Int32Array` on shared memory whose word 0 is the id of the
 * statement to cancel.
 */
export const source = `
const { parentPort, workerData } = require("node:worker_threads")
const { DatabaseSync } = require("node:sqlite")
const busyMillis = ${busyMillis}
const cancel = workerData.cancel
const SQLITE_BUSY = 5
const failure = (id, e, cancelled) =>
  ({ _tag: "Failed", id, message: e instanceof Error ? e.message : String(e), errcode: e && e.errcode, cancelled })
// Runs fn, trying again while the database is locked, until busyMillis pass or the main thread cancels id.
const retrying = (id, fn) => {
  const deadline = Date.now() + busyMillis
  while (true) {
    try {
      return fn()
    } catch (e) {
      if (!(e && (e.errcode & 0xff) === SQLITE_BUSY) || Date.now() >= deadline) throw e
      if (Atomics.load(cancel, 0) === id) throw Object.assign(new Error("cancelled"), { cancelled: true })
      Atomics.wait(cancel, 0, Atomics.load(cancel, 0), 5)
      if (Atomics.load(cancel, 0) === id) throw Object.assign(new Error("cancelled"), { cancelled: true })
    }
  }
}
let db
try {
  db = new DatabaseSync(workerData.filename)
  retrying(0, () => db.exec("PRAGMA journal_mode = WAL"))
  parentPort.postMessage({ _tag: "Opened" })
} catch (e) {
  parentPort.postMessage(failure(0, e, false))
  process.exit(0)
}
parentPort.on("message", (request) => {
  if (request._tag === "Close") {
    db.close()
    // Ends this thread only.
    process.exit(0)
  }
  const { id, sql, params, arrays, safeIntegers } = request
  try {
    const rows = retrying(id, () => {
      const statement = db.prepare(sql)
      statement.setReadBigInts(safeIntegers)
      statement.setReturnArrays(arrays)
      if (statement.columns().length > 0) return statement.all(...params)
      statement.run(...params)
      return []
    })
    parentPort.postMessage({ _tag: "Rows", id, rows })
  } catch (e) {
    parentPort.postMessage(failure(id, e, e && e.cancelled === true))
  }
})
`
