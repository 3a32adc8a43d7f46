/**
 * The test kit: a scripted Anthropic Messages API server, a sandbox for the real `claude` binary, scripts
 * and canned processes, and a conformance kit for session stores (`effect-claude-code/testing`).
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as ClaudeSandbox from "./ClaudeSandbox.ts"

/**
 * @since 0.1.0
 */
export * as FakeSpawner from "./FakeSpawner.ts"

/**
 * A throwaway PostgreSQL server for tests and demos (moved here from `cluster`).
 *
 * @since 0.1.0
 */
export * as LocalPostgres from "./LocalPostgres.ts"

/**
 * @since 0.1.0
 */
export * as MessagesRequest from "./MessagesRequest.ts"

/**
 * @since 0.1.0
 */
export * as Scenario from "./Scenario.ts"

/**
 * @since 0.1.0
 */
export * as Script from "./Script.ts"

/**
 * The test kit's `ClaudeCli` layers: the real CLI against a scripted model (moved here from `layers`).
 *
 * @since 0.1.0
 */
export * as Scripted from "./Scripted.ts"

/**
 * @since 0.1.0
 */
export * as ScriptedServer from "./ScriptedServer.ts"

/**
 * @since 0.1.0
 */
export * as StoreConformance from "./StoreConformance.ts"

