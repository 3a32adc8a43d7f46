/**
 * Long-lived sessions over the CLI's control protocol.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as CanUseTool from "./CanUseTool.ts"
/**
 * @since 0.1.0
 */
export * as Controls from "./Controls.ts"
/**
 * @since 0.1.0
 */
export * as Dialogs from "./Dialogs.ts"
/**
 * @since 0.1.0
 */
export * as Hooks from "./Hooks.ts"
/**
 * @since 0.1.0
 */
export * as Incoming from "./Incoming.ts"
/**
 * @since 0.1.0
 */
export * as McpServer from "./McpServer.ts"
/**
 * @since 0.1.0
 */
export * as Policy from "./Policy.ts"
/**
 * @since 0.1.0
 */
export * as Protocol from "./Protocol.ts"
/**
 * @since 0.1.0
 */
export * as Session from "./Session.ts"
/**
 * @since 0.1.0
 */
export * as SessionError from "./SessionError.ts"
/**
 * @since 0.1.0
 */
export * as UserContent from "./UserContent.ts"
