/**
 * An `effect/sql` client on Node's built-in `node:sqlite`: one connection, statements serialized, WAL on.
 * The cluster's runner storage and `SqlSessionStore.layerSqlite` use it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import type * as NodeSqlite from "node:sqlite"

// Why not `@effect/sql-sqlite-node`: its newest release (4.0.0-beta.102; `latest` is for effect 3) imports
// `effect/unstable/sql` and `effect/unstable/reactivity`, which effect 4.1 has as `effect/sql` and
// `effect/reactivity`, so it cannot load beside effect 4.1. Swap it in here once it has an effect 4.1 release.

const failure = (operation: string) => (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({ cause, message: cause instanceof Error ? cause.message : String(cause), operation })
  })

const make = (filename: string) =>
  Effect.gen(function*() {
    // Loaded here, not at import: Node warns that `node:sqlite` is experimental when it loads, and users of the
    // entry points that never build an SQLite layer should not see that.
    const { DatabaseSync }: typeof NodeSqlite = yield* Effect.promise(() => import("node:sqlite"))
    // A file that cannot be opened (a missing directory, no permission, not a database) is a SqlError.
    const db = yield* Effect.try({ try: () => new DatabaseSync(filename), catch: failure("open") })
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    yield* Effect.try({
      try: () => {
        db.exec("PRAGMA journal_mode = WAL")
        db.exec("PRAGMA busy_timeout = 5000")
      },
      catch: failure("open")
    })

    const run = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean) =>
      Effect.withFiber<ReadonlyArray<any>, SqlError.SqlError>((fiber) =>
        Effect.try({
          try: () => {
            const statement = db.prepare(sql)
            statement.setReadBigInts(Context.get(fiber.context, SqlClient.SafeIntegers))
            statement.setReturnArrays(arrays)
            if (statement.columns().length > 0) return statement.all(...(params as Array<any>)) as ReadonlyArray<any>
            statement.run(...(params as Array<any>))
            return []
          },
          catch: failure("execute")
        })
      )

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
