/**
 * The CLI's sessions on disk: listing, reading in conversation order, subagents, fork and delete.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Lease from "./Lease.ts"
/** @since 0.1.0 */
export * as ProjectKey from "./ProjectKey.ts"
/** @since 0.1.0 */
export * as SessionFiles from "./SessionFiles.ts"
/** @since 0.1.0 */
export * as SessionFilesError from "./SessionFilesError.ts"
/** @since 0.1.0 */
export * as SessionMirror from "./SessionMirror.ts"
/** @since 0.1.0 */
export * as SessionStore from "./SessionStore.ts"
/** @since 0.1.0 */
export * as SqlSessionStore from "./SqlSessionStore.ts"
/** @since 0.1.0 */
export * as StoredSessions from "./StoredSessions.ts"
