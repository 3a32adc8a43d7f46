/**
 * Effect Schemas for everything the Claude Code CLI writes in stream-json
 * mode.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export type * as ApiMessage from "./ApiMessage.ts"
/** @since 0.1.0 */
export * as ContentBlock from "./ContentBlock.ts"
/** @since 0.1.0 */
export type * as Control from "./Control.ts"
/**
 * The answers to the session's control requests, as types: read from the session's methods, never decoded
 * by users.
 *
 * @since 0.1.0
 */
export type * as ControlAnswer from "./ControlAnswer.ts"
/** @since 0.1.0 */
export * as HookEvents from "./HookEvents.ts"
/** @since 0.1.0 */
export * as Message from "./Message.ts"
/** @since 0.1.0 */
export type * as Origin from "./Origin.ts"
/** @since 0.1.0 */
export * as Permission from "./Permission.ts"
/** @since 0.1.0 */
export * as Result from "./Result.ts"
/** @since 0.1.0 */
export * as SessionEvent from "./SessionEvent.ts"
/** @since 0.1.0 */
export * as StreamEvent from "./StreamEvent.ts"
/** @since 0.1.0 */
export * as System from "./System.ts"
/** @since 0.1.0 */
export * as ToolInput from "./ToolInput.ts"
/** @since 0.1.0 */
export * as ToolUseResult from "./ToolUseResult.ts"
/** @since 0.1.0 */
export type * as Usage from "./Usage.ts"
