/**
 * Runners for agent session entities, by size: in memory for tests, and one machine that survives restarts
 * (`SingleRunner` on an SQLite file through Node's `node:sqlite`, the embedded default: no server). Each
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
import * as MessageStorage from "effect/cluster/MessageStorage"
import type * as Runners from "effect/cluster/Runners"
import type * as Sharding from "effect/cluster/Sharding"
import type * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Config from "effect/Config"
import type { ConfigError } from "effect/Config"
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Sqlite from "../internal/sqlite.ts"
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
}

/**
 * One machine: `SingleRunner` with its messages, runner state and the turn log in one SQLite file, so that
 * a restarted process picks up where the last one stopped. Also provides the `SqlClient`, for a workflow
 * engine on the same file.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: SqliteOptions
): Layer.Layer<Services | SqlClient.SqlClient, ConfigError> =>
  Layer.merge(
    SingleRunner.layer({ shardingConfig: options.shardingConfig }),
    TurnLog.layerSql()
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
export const layerSqliteConfig: Layer.Layer<Services | SqlClient.SqlClient, ConfigError> = Layer.unwrap(
  Effect.map(
    Config.String("CLAUDE_CLUSTER_SQLITE").pipe(Config.withDefault("claude-cluster.db")),
    (filename) => layerSqlite({ filename })
  )
)
