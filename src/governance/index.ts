/**
 * Governance for fleets: spending limits per tenant, user or job, shared by queries, sessions and entities.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Budget from "./Budget.ts"
/** @since 0.1.0 */
export * as CliSlots from "./CliSlots.ts"
