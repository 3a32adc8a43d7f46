/**
 * Agent sessions as Effect Cluster entities.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Wire from "./Wire.ts"
/** @since 0.1.0 */
export * as AgentSession from "./AgentSession.ts"
/** @since 0.1.0 */
export * as TurnLog from "./TurnLog.ts"
/** @since 0.1.0 */
export * as Cluster from "./Cluster.ts"
/** @since 0.1.0 */
export * as AgentJob from "./AgentJob.ts"
