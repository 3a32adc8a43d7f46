/**
 * Stored sessions: the `SessionStore` contract and its stores (memory, a directory, SQL), a stored session into
 * and out of a CLI config directory, and the SDK's session functions (`Sessions`) over a config directory or a
 * store.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as DirectorySessionStore from "./DirectorySessionStore.ts"
/** @since 0.1.0 */
export * as MemorySessionStore from "./MemorySessionStore.ts"
/** @since 0.1.0 */
export * as Lease from "./Lease.ts"
/** @since 0.1.0 */
export * as ProjectKey from "./ProjectKey.ts"
/** @since 0.1.0 */
export * as SessionFiles from "./SessionFiles.ts"
/** @since 0.1.0 */
export * as Sessions from "./Sessions.ts"
/** @since 0.1.0 */
export * as SessionStore from "./SessionStore.ts"
/** @since 0.1.0 */
export * as SessionTransfer from "./SessionTransfer.ts"
/** @since 0.1.0 */
export * as SqlSessionStore from "./SqlSessionStore.ts"
/** @since 0.1.0 */
export * as StoredSessions from "./StoredSessions.ts"
