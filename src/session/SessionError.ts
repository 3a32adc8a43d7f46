/**
 * The error of a session's control operations. The `reason` says what went wrong and carries the data to act on.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The CLI answered a control request with an error.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ControlRequestFailed extends Schema.TaggedError<ControlRequestFailed>()("ControlRequestFailed", {
  subtype: Schema.String,
  error: Schema.String
}) {
  override get message(): string {
    return `The CLI refused the "${this.subtype}" control request: ${this.error}`
  }
}

/**
 * No answer to a control request arrived in time; the request was withdrawn with `control_cancel_request`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ControlTimeout extends Schema.TaggedError<ControlTimeout>()("ControlTimeout", {
  subtype: Schema.String,
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `The CLI did not answer the "${this.subtype}" control request within ${this.timeoutMillis} ms`
  }
}

/**
 * An interrupted turn did not end within the deadline, so the session ended it by force.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InterruptTimeout extends Schema.TaggedError<InterruptTimeout>()("InterruptTimeout", {
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `The turn did not end within ${this.timeoutMillis} ms of the interrupt; the CLI was terminated`
  }
}

/**
 * The CLI answered a control request with something this library cannot read (for example an `initialize`
 * response whose `commands` is not a list).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidResponse extends Schema.TaggedError<InvalidResponse>()("InvalidResponse", {
  subtype: Schema.String,
  /** What does not fit, as the schema reports it. */
  detail: Schema.String
}) {
  override get message(): string {
    return `The CLI's answer to the "${this.subtype}" control request does not fit its schema: ${this.detail}`
  }
}

/**
 * The session is closed, or its CLI process ended, so the operation cannot complete.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionClosed extends Schema.TaggedError<SessionClosed>()("SessionClosed", {
  /** What was attempted. */
  operation: Schema.String,
  exitCode: Schema.optional(Schema.NullOr(Schema.Number)),
  /** The signal that ended the CLI, when one did (then `exitCode` is `null`). */
  signal: Schema.optional(Schema.NullOr(Schema.String)),
  stderrTail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const exit = this.signal !== undefined && this.signal !== null
      ? ` (killed by ${this.signal})`
      : this.exitCode === undefined
      ? ""
      : ` (exit code ${this.exitCode})`
    const tail = this.stderrTail?.trim() ?? ""
    return `Cannot ${this.operation}: the session is closed${exit}` + (tail === "" ? "" : `; stderr:\n${tail}`)
  }
}

/**
 * The session options contradict each other (for example a `canUseTool` callback with a permission prompt tool).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidOptions extends Schema.TaggedError<InvalidOptions>()("InvalidOptions", {
  description: Schema.String
}) {
  override get message(): string {
    return `Invalid session options: ${this.description}`
  }
}

/**
 * A callback (`canUseTool`, a hook, an MCP tool) failed, timed out, returned the wrong kind of value (a
 * Promise or a plain value where an Effect is due, `undefined` where a result is due) or an answer that cannot
 * be written as JSON, or its answer could not be written. The CLI got an error answer instead (a deny, a hook
 * error, an MCP error result), so the turn goes on; the session reports this on `Session.errors`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CallbackFailed extends Schema.TaggedError<CallbackFailed>()("CallbackFailed", {
  /** Which callback: `canUseTool`, `the PreToolUse hook`, `the MCP tool "add" of server "calc"`. */
  callback: Schema.String,
  /** What went wrong, in a few words. */
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.callback} failed and the CLI was answered with an error: ${this.detail}`
  }
}

/**
 * A value given to the session (a message's content, a control request) cannot be written as JSON: a
 * BigInt, a cyclic object, ... Nothing was written.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Unserializable extends Schema.TaggedError<Unserializable>()("Unserializable", {
  /** What was attempted. */
  operation: Schema.String,
  /** Why JSON refuses it. */
  detail: Schema.String
}) {
  override get message(): string {
    return `Cannot ${this.operation}: it cannot be written as JSON (${this.detail})`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([
  ControlRequestFailed,
  ControlTimeout,
  InterruptTimeout,
  InvalidResponse,
  SessionClosed,
  InvalidOptions,
  CallbackFailed,
  Unserializable
])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * Recover by reason with `Effect.catchReason("SessionError", "ControlTimeout", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionError extends Schema.TaggedError<SessionError>()("SessionError", { reason: Reason }) {
  override get message(): string {
    return this.reason.message
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason): SessionError => new SessionError({ reason })
