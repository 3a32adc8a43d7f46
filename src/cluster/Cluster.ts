/**
 * Runners for agent session entities, by size: in memory for tests, one machine that survives restarts
 * (`SingleRunner` on an SQLite file through Node's `node:sqlite`, the embedded default: no server), and many
 * machines (socket runners sharing one PostgreSQL, with failover between them). Each
 * layer also provides the {@link TurnLog.TurnLog} the entities keep their turns and session ids in, in the same
 * storage as the cluster's messages.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { AgentSession, Cluster } from "effect-claude-code/cluster"
 * import { Live } from "effect-claude-code/layers"
 *
 * // CLAUDE_CLUSTER_SQLITE=agents.db node service.ts
 * const Agents = AgentSession.layer({ maxIdleTime: "10 minutes" }).pipe(
 *   Layer.provideMerge(Cluster.layerSqliteConfig),
 *   Layer.provide(Live.layer())
 * )
 * ```
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as MessageStorage from "effect/cluster/MessageStorage"
import type * as Runners from "effect/cluster/Runners"
import type * as Sharding from "effect/cluster/Sharding"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Snowflake from "effect/cluster/Snowflake"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Config from "effect/Config"
import type { ConfigError } from "effect/Config"
import * as Context from "effect/Context"
import * as Digest from "effect/crypto/Digest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as SocketServer from "effect/socket/SocketServer"
import type * as SqlError from "effect/sql/SqlError"
import * as SqlClient from "effect/sql/SqlClient"
import * as Sqlite from "../internal/sqlite.ts"
import * as SessionStore from "../store/SessionStore.ts"
import * as SqlSessionStore from "../store/SqlSessionStore.ts"
import * as Drain from "./internal/drain.ts"
import * as QuietShutdown from "./internal/quietShutdown.ts"
import * as RunnerSocket from "./internal/runnerSocket.ts"
import * as TurnLog from "./TurnLog.ts"

/**
 * What every runner layer provides.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | TurnLog.TurnLog

/**
 * One runner in memory: the cluster's `TestRunner` and an in-memory turn log.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest: Layer.Layer<Services | MessageStorage.MemoryDriver> = Layer.merge(
  TestRunner.layer,
  TurnLog.layerMemory
)

/**
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions {
  /** The database file; created when missing. */
  readonly filename: string
  /** Overrides of the sharding configuration (otherwise read from the environment, see `ShardingConfig`). */
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
  /** How long the turn log keeps turns (default: 30 days, 1000 an entity). */
  readonly turnRetention?: TurnLog.Retention | undefined
}

/**
 * One machine: `SingleRunner` with its messages, runner state and the turn log in one SQLite file, so that
 * a restarted process picks up where the last one stopped. Also provides the `SqlClient`, for a workflow
 * engine on the same file.
 *
 * When the process ends, its entities get one second to finish (`entityTerminationTimeout`, 15 s in
 * `ShardingConfig`; set it in `shardingConfig` to wait longer): a turn still running then resumes at the next
 * start, as a retry. Every caller of a single runner is in its process, which is ending; and a turn re-delivered
 * after a crash streams to a caller that is gone, so it never ends on its own and would hold the exit for the
 * whole timeout.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: SqliteOptions
): Layer.Layer<Services | SqlClient.SqlClient, ConfigError | SqlError.SqlError> =>
  Layer.merge(
    QuietShutdown.layer(SingleRunner.layer({
      shardingConfig: { entityTerminationTimeout: Duration.seconds(1), ...options.shardingConfig }
    })),
    TurnLog.layerSql({ retention: options.turnRetention })
  ).pipe(
    Layer.provideMerge(Sqlite.layer(options.filename)),
    Layer.provide(Digest.layerWebCrypto)
  )

/**
 * {@link layerSqlite} with the file from `CLAUDE_CLUSTER_SQLITE` (default `claude-cluster.db`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqliteConfig: Layer.Layer<Services | SqlClient.SqlClient, ConfigError | SqlError.SqlError> = Layer.unwrap(
  Effect.map(
    Config.String("CLAUDE_CLUSTER_SQLITE").pipe(Config.withDefault("claude-cluster.db")),
    (filename) => layerSqlite({ filename })
  )
)

/**
 * `@effect/sql-pg`, which {@link layerPostgres} runs on, could not be loaded: it is an optional peer
 * dependency, installed by those who use PostgreSQL.
 *
 * @since 0.1.0
 * @category reasons
 */
export class PostgresDriverMissing extends Schema.TaggedError<PostgresDriverMissing>()("PostgresDriverMissing", {
  /** The module that was imported. */
  module: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `Cluster.layerPostgres runs on @effect/sql-pg, an optional peer dependency, and ${this.module} could not ` +
      `be loaded (${this.description}): install it with \`npm install @effect/sql-pg\``
  }
}

/**
 * @since 0.1.0
 * @category errors
 */
export class ClusterError extends Schema.TaggedError<ClusterError>()("ClusterError", {
  reason: Schema.Union([PostgresDriverMissing])
}) {
  override get message(): string {
    return this.reason.message
  }
}

// Imported when used: `@effect/sql-pg` is an optional peer dependency, needed by this layer only.
const pgClient = (url: Redacted.Redacted, settings?: { readonly maxConnections: number; readonly startupParameters: Record<string, string> }) =>
  Layer.unwrap(Effect.map(
    Effect.tryPromise({
      try: () => import("@effect/sql-pg/PgClient"),
      catch: (cause) =>
        new ClusterError({
          reason: new PostgresDriverMissing({
            module: "@effect/sql-pg/PgClient",
            description: cause instanceof Error ? cause.message : String(cause),
            cause
          })
        })
    }),
    (PgClient) => PgClient.layer({ url, ...settings })
  ))

// The cluster's messages (`SqlMessageStorage`), two of its writes committed without waiting for the disk: they
// go through connections of their own whose `synchronous_commit` is off. They are on every turn's way, one after
// another (issue 23): a chunk of a reply stream is saved, then its acknowledgement, which the runner's storage
// read takes up (a write: it marks the messages read) before the next chunk. A flush is 3.4 ms idle and about
// 8 ms (median) at a load of 19 on 2 cores, where a turn waits for 5 of them (the read of its request, then an
// acknowledgement and its read for each of 2 chunks). Losing either to a database crash is harmless:
// PostgreSQL writes its log in order, so the next synchronous commit on the server (the next saved reply, the
// exit among them, which comes only after them) makes them durable too. A lost acknowledgement leaves its chunk
// unacknowledged, read again after the restart as a chunk whose acknowledgement had not committed is now; a
// lost read mark leaves the message unclaimed, as the runner that takes the shard after a restart makes it
// anyway (`resetShards`). Requests, replies and the exit stay synchronous.
const messageStorage = (url: Redacted.Redacted) =>
  Layer.effect(
    MessageStorage.MessageStorage,
    Effect.gen(function*() {
      const durable = yield* SqlMessageStorage.makeEncoded()
      const unflushed = yield* SqlMessageStorage.makeEncodedStorage().pipe(
        Effect.provide(yield* Layer.build(pgClient(url, { maxConnections: 4, startupParameters: { synchronous_commit: "off" } })))
      )
      return yield* MessageStorage.makeEncoded({
        ...durable,
        saveEnvelope: (options) =>
          options.envelope._tag === "AckChunk" ? unflushed.saveEnvelope(options) : durable.saveEnvelope(options),
        unprocessedMessages: unflushed.unprocessedMessages
      })
    })
  ).pipe(Layer.provide([Snowflake.layerGenerator, Digest.layerWebCrypto]))

// The turn log and the session store, their tables created under a lock: runners starting together would
// otherwise race in `CREATE TABLE IF NOT EXISTS`, which PostgreSQL does not make atomic.
const tables = (retention: TurnLog.Retention | undefined) => Layer.effectContext(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [log, store] = yield* sql.withTransaction(
    Effect.andThen(sql`SELECT pg_advisory_xact_lock(${tablesLock})`, Effect.all([TurnLog.makeSql({ retention }), SqlSessionStore.make()]))
  )
  return Context.make(TurnLog.TurnLog, log).pipe(Context.add(SessionStore.SessionStore, store))
}))

// An advisory lock key of this library's own ("ecc" and a version).
const tablesLock = 0x65636301

/**
 * @since 0.1.0
 * @category models
 */
export interface PostgresOptions {
  /** The database every runner (and client) of the cluster shares. */
  readonly url: Redacted.Redacted
  /** Where the other runners reach this one; omitted for a client that runs no entities. */
  readonly runnerAddress?: { readonly host: string; readonly port: number } | undefined
  /** The address to listen on when it differs from `runnerAddress` (behind NAT, in containers). */
  readonly listenAddress?: { readonly host: string; readonly port: number } | undefined
  /**
   * How RPCs are serialized between runners and clients: `"binary"` (default, as Effect's socket runners
   * default to: compact frames, in which the CLI's messages are JSON text, see `Wire`) or `"ndjson"` (frames
   * a person can read on the wire). Every runner and client of one cluster must use the same.
   */
  readonly serialization?: "ndjson" | "binary" | undefined
  /** Overrides of the sharding configuration (lock expiry, poll intervals, ...). */
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
  /** How long the turn log keeps turns (default: 30 days, 1000 an entity). */
  readonly turnRetention?: TurnLog.Retention | undefined
  /**
   * How long the runner, when it stops (SIGTERM under `NodeRuntime.runMain`, or its layer's scope closed), lets
   * its agent sessions' running turns finish and answer before it hands their entities over. Default 60 seconds.
   */
  readonly drainDeadline?: Duration.Input | undefined
}

/**
 * Many machines: socket runners (`NodeClusterSocket`) whose messages, runner registry and shard locks live
 * in one PostgreSQL (`SqlMessageStorage`, `SqlRunnerStorage` through `@effect/sql-pg`), with the turn log and
 * a {@link SessionStore.SessionStore} (the SQL store) in the same database. When a runner dies, its shard
 * locks go (PostgreSQL's advisory locks end with its connection; otherwise after `shardLockExpiration`), the
 * others take its shards and re-deliver its unfinished (persisted) requests, such as a `Turn` in flight;
 * entities given the store as their `sessionStore` resume their conversations there. Without a
 * `runnerAddress` the layer is a client only: it sends requests and runs no entities. Also provides
 * `FileSystem` and `Path` (for the session mirror) and the `SqlClient`. Without `@effect/sql-pg` installed it
 * fails with a {@link ClusterError} (`PostgresDriverMissing`).
 *
 * A runner that stops drains first: its agent sessions start no new turn (those wait in the database for the
 * runner that takes the entity), and their running turns finish and answer, up to `drainDeadline` (60 s); then
 * it hands its shards over. A turn that finished during the drain is never retried; one cut by the deadline is
 * re-delivered elsewhere and runs again, its `TurnStarted` saying `attempt: 2`. A runner whose stop still goes on
 * 15 seconds past its deadline (something it waits on does not end) says on stderr what it was doing and ends
 * its process (exit code 1).
 *
 * The acknowledgements of reply chunks and the runner's reads of its messages commit without waiting for the
 * disk, through up to 4 connections of their own (`synchronous_commit` off): a database crash can lose the
 * last of them, which is harmless (see the code), and each turn is spared a flush for each. Requests,
 * replies and the turn log's records stay synchronous.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPostgres = (
  options: PostgresOptions
): Layer.Layer<
  Services | SessionStore.SessionStore | SqlClient.SqlClient | FileSystem.FileSystem | Path.Path,
  ConfigError | SocketServer.SocketServerError | SqlError.SqlError | ClusterError | SessionStore.SessionStoreError
> => {
  const address = (a: { readonly host: string; readonly port: number }) => RunnerAddress.make(a.host, a.port)
  const shardingConfig: Partial<ShardingConfig.ShardingConfig["Service"]> = {
    ...options.shardingConfig,
    runnerAddress: options.runnerAddress === undefined ? Option.none() : Option.some(address(options.runnerAddress)),
    ...(options.listenAddress === undefined ? {} : { runnerListenAddress: Option.some(address(options.listenAddress)) })
  }
  const storage = Layer.merge(
    messageStorage(options.url),
    Layer.orDie(SqlRunnerStorage.layer).pipe(Layer.provide(ShardingConfig.layerFromEnv(shardingConfig)))
  )
  const sharding: Layer.Layer<
    Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
    ConfigError | SocketServer.SocketServerError | ClusterError | SqlError.SqlError,
    SqlClient.SqlClient
  > = (
    options.runnerAddress === undefined
      ? NodeClusterSocket.layer({ clientOnly: true, storage: "byo", serialization: options.serialization ?? "binary", shardingConfig })
      : RunnerSocket.layer({ serialization: options.serialization ?? "binary", shardingConfig })
  ).pipe(Layer.provideMerge(storage))
  const drain = Layer.succeed(Drain.Deadline, options.drainDeadline ?? Drain.defaultDeadline)
  return Layer.mergeAll(sharding, tables(options.turnRetention), NodeFileSystem.layer, NodePath.layer, drain).pipe(
    // Closed once the sharding is shut down, before the database connections.
    Layer.provideMerge(Layer.effectDiscard(Effect.addFinalizer(() =>
      Effect.flatMap(Drain.Watch, (watch) => watch === undefined ? Effect.void : watch.stage("closing its database connections"))
    ))),
    Layer.provideMerge(pgClient(options.url)),
    // Built first, so closed last: a runner's stop is watched until its database connections are closed.
    Layer.provideMerge(options.runnerAddress === undefined ? Layer.empty : Drain.layerWatchdog)
  )
}

/**
 * The options of {@link layerPostgres} from `Config`: `CLAUDE_CLUSTER_PG_URL` (the database),
 * `CLAUDE_CLUSTER_RUNNER_HOST` and `CLAUDE_CLUSTER_RUNNER_PORT` (this runner's address, default port 34431;
 * without a host the layer is a client only), `CLAUDE_CLUSTER_SERIALIZATION` (`binary`, the default, or `ndjson`),
 * `CLAUDE_CLUSTER_DRAIN_DEADLINE` (default `60 seconds`, see {@link PostgresOptions}).
 *
 * @since 0.1.0
 * @category config
 */
export const postgresConfig: Config.Config<PostgresOptions> = Config.all({
  url: Config.Redacted("CLAUDE_CLUSTER_PG_URL"),
  host: Config.option(Config.String("CLAUDE_CLUSTER_RUNNER_HOST")),
  port: Config.Int("CLAUDE_CLUSTER_RUNNER_PORT").pipe(Config.withDefault(34431)),
  serialization: Config.Literals(["binary", "ndjson"], "CLAUDE_CLUSTER_SERIALIZATION").pipe(
    Config.withDefault("binary" as const)
  ),
  drainDeadline: Config.Duration("CLAUDE_CLUSTER_DRAIN_DEADLINE").pipe(Config.withDefault(Drain.defaultDeadline))
}).pipe(Config.map(({ drainDeadline, host, port, serialization, url }) => ({
  url,
  serialization,
  drainDeadline,
  runnerAddress: Option.match(host, { onNone: () => undefined, onSome: (host) => ({ host, port }) })
})))

/**
 * {@link layerPostgres} with its options from {@link postgresConfig}; the sharding configuration's other
 * settings come from the environment as `ShardingConfig.layerFromEnv` reads them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPostgresConfig = Layer.unwrap(Effect.map(postgresConfig, layerPostgres))
