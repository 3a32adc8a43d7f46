/**
 * An `effect/sql` client on Node's built-in `node:sqlite`: one connection, owned by a worker thread (see
 * `sqliteWorker.ts`), statements serialized, WAL on. A statement waiting for a lock another process holds
 * (up to 5 seconds) delays itself only; interrupted, it stops waiting. The cluster's runner storage and
 * `SqlSessionStore.layerSqlite` use it.
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import * as WorkerThreads from "node:worker_threads"
import * as SqliteWorker from "./sqliteWorker.ts"

// Why not `@effect/sql-sqlite-node`: its newest release (4.0.0-beta.102; `latest` is for effect 3) imports
// `effect/unstable/sql` and `effect/unstable/reactivity`, which effect 4.1 has as `effect/sql` and
// `effect/reactivity`, so it cannot load beside effect 4.1. Swap it in here once it has an effect 4.1 release.

const failure = (operation: string) => (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({ cause, message: cause instanceof Error ? cause.message : String(cause), operation })
  })

const make = (filename: string) =>
  Effect.gen(function*() {
    const cancel = new Int32Array(new SharedArrayBuffer(4))
    // Started here, not at import, so that users of the entry points that never build an SQLite layer start no
    // thread (and see no warning that `node:sqlite` is experimental).
    const worker = new WorkerThreads.Worker(SqliteWorker.source, { eval: true, workerData: { filename, cancel } })
    // Each answer goes to the statement waiting for it; the worker keeps the process alive only while one waits.
    const waiting = new Map<number, (reply: SqliteWorker.Answer) => void>()
    const opened = yield* Deferred.make<void, SqlError.SqlError>()
    const gone = yield* Deferred.make<void>()
    worker.on("message", (reply: SqliteWorker.Reply) => {
      if (reply._tag === "Opened") return Deferred.doneUnsafe(opened, Exit.void)
      const resume = waiting.get(reply.id)
      // The only answer no statement waits for: the opening's failure.
      if (resume === undefined) {
        if (reply._tag === "Failed") Deferred.doneUnsafe(opened, Exit.fail(failure("open")(new Error(reply.message))))
        return
      }
      waiting.delete(reply.id)
      if (waiting.size === 0) worker.unref()
      resume(reply)
    })
    // A worker that ends (closed, or crashed) fails every statement still waiting, and the opening.
    worker.on("error", (cause) => Deferred.doneUnsafe(opened, Exit.fail(failure("open")(cause))))
    worker.on("exit", () => {
      Deferred.doneUnsafe(opened, Exit.fail(failure("open")(new Error("the SQLite worker ended"))))
      Deferred.doneUnsafe(gone, Exit.void)
      for (const [id, resume] of waiting) resume({ _tag: "Failed", id, message: "the SQLite worker ended", cancelled: false })
      waiting.clear()
    })
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        worker.postMessage({ _tag: "Close" } satisfies SqliteWorker.Request)
        return Deferred.await(gone)
      })
    )
    // A file that cannot be opened (a missing directory, no permission, not a database) is a SqlError.
    yield* Deferred.await(opened)

    let nextId = 1
    // One statement in the worker at a time (the client's acquirer serializes them). An interrupted one is
    // cancelled if it waits for a lock, and waited for either way, so the next starts only once it has ended.
    const run = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean) =>
      Effect.withFiber<ReadonlyArray<any>, SqlError.SqlError>((fiber) => {
        const id = nextId++
        const request: SqliteWorker.Request = {
          _tag: "Run",
          id,
          sql,
          params,
          arrays,
          safeIntegers: Context.get(fiber.context, SqlClient.SafeIntegers)
        }
        return Effect.callback<ReadonlyArray<any>, SqlError.SqlError>((resume) => {
          const answer = (reply: SqliteWorker.Answer) =>
            resume(
              reply._tag === "Rows"
                ? Effect.succeed(reply.rows)
                : Effect.fail(failure("execute")(Object.assign(new Error(reply.message), { errcode: reply.errcode })))
            )
          waiting.set(id, answer)
          worker.ref()
          worker.postMessage(request)
          return Effect.callback<void>((ended) => {
            if (!waiting.has(id)) return ended(Effect.void)
            waiting.set(id, () => ended(Effect.void))
            Atomics.store(cancel, 0, id)
            Atomics.notify(cancel, 0)
          })
        })
      })

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false),
      executeRaw: (sql, params) => run(sql, params, false),
      executeValues: (sql, params) => run(sql, params, true),
      executeValuesUnprepared: (sql, params) => run(sql, params, true),
      executeUnprepared: (sql, params, transformRows) =>
        transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(
          transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false)
        )
    }

    const semaphore = yield* Semaphore.make(1)
    // A transaction holds the connection until its scope closes.
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.scope, (scope) =>
        Effect.as(
          Effect.tap(restore(semaphore.take(1)), () => Scope.addFinalizer(scope, semaphore.release(1))),
          connection
        ))
    )
    return yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(Effect.succeed(connection)),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node:sqlite",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/**
 * A `SqlClient` on the SQLite file `filename` (created when missing), closed with the layer; a file that
 * cannot be opened fails it with a `SqlError`.
 */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(filename)).pipe(Layer.provide(Reactivity.layer))
