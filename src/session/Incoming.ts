/**
 * Why a session answered a request of the CLI with an error instead of a callback's answer: the session
 * answers `can_use_tool` through the permission callback, `hook_callback` through the hooks, `mcp_message`
 * through the in-process MCP servers, and any other request with an error.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Protocol from "./Protocol.ts"

/**
 * A callback took longer than the session's `callbackTimeout`; it was interrupted and the CLI was answered
 * with this message (as a deny for `canUseTool`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class CallbackTimeout extends Schema.TaggedError<CallbackTimeout>()("CallbackTimeout", {
  /** Which callback: `canUseTool`, `the PreToolUse hook`, `the MCP server "calc"`. */
  callback: Schema.String,
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `${this.callback} did not answer within ${this.timeoutMillis} ms (callbackTimeout)`
  }
}

/**
 * A callback's Effect ended by interruption of its own (`Effect.interrupt`, joining an interrupted fiber)
 * before it answered; the CLI was answered with this message (as a deny for `canUseTool`). A request the CLI
 * withdraws (`control_cancel_request`) is not this: it gets no answer, as the protocol wants.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CallbackInterrupted extends Schema.TaggedError<CallbackInterrupted>()("CallbackInterrupted", {
  /** Which callback: `canUseTool`, `the PreToolUse hook`, `the MCP server "calc"`. */
  callback: Schema.String
}) {
  override get message(): string {
    return `${this.callback} was interrupted before it answered`
  }
}

/**
 * The CLI asked for a callback the session does not have: a permission decision without a `canUseTool`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingCallback extends Schema.TaggedError<MissingCallback>()("MissingCallback", {
  /** Which callback: `canUseTool`. */
  callback: Schema.String
}) {
  override get message(): string {
    return `no ${this.callback} callback is registered`
  }
}

/**
 * The CLI sent a message for an SDK MCP server the session does not have.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnknownMcpServer extends Schema.TaggedError<UnknownMcpServer>()("UnknownMcpServer", {
  server: Schema.String
}) {
  override get message(): string {
    return `unknown MCP server ${this.server}`
  }
}

/**
 * Every reason a `CallbackError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([
  CallbackTimeout,
  CallbackInterrupted,
  MissingCallback,
  UnknownMcpServer,
  Protocol.UnsupportedRequest
])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * Why an incoming request of the CLI was answered with an error instead of a callback's answer; the CLI gets
 * its message. Recover by reason with `Effect.catchReason("CallbackError", "CallbackTimeout", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class CallbackError extends Schema.TaggedError<CallbackError>()("CallbackError", { reason: Reason }) {
  override get message(): string {
    return this.reason.message
  }
}
