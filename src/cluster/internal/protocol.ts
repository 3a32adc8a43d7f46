/**
 * What an AgentSession entity answers: its requests (`Turn`, `Send`, ...), the events of a turn, its
 * information, and its error with every reason. `AgentSession` publishes each.
 */
import * as ClusterSchema from "effect/cluster/ClusterSchema"
import * as Rpc from "effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import * as CliError from "../../ClaudeCliError.ts"
import * as Budget from "../../governance/Budget.ts"
import * as PermissionModes from "../../internal/permissionMode.ts"
import * as SessionError from "../../session/SessionError.ts"
import * as TurnLog from "../TurnLog.ts"
import { WireMessage } from "../Wire.ts"

/**
 * The CLI session could not start, or failed while serving a request. `error` is the session's own error, with
 * its reason and data (`ProcessExited` with the exit code or signal and the stderr tail, `InterruptTimeout`,
 * `IdleTimeout`, ...): it crosses the wire whole, so a client can act on it.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionFailed extends Schema.TaggedError<SessionFailed>()("SessionFailed", {
  /** What the entity was doing: `start`, `turn`, `send`, `interrupt`, `setModel`, `setPermissionMode`. */
  operation: Schema.String,
  error: Schema.Union([CliError.ClaudeCliError, SessionError.SessionError])
}) {
  override get message(): string {
    return `The agent session failed during ${this.operation}: ${this.error.message}`
  }
}

/**
 * A turn was delivered again after its retry had already started: it is not run a third time.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TurnRetriesExhausted extends Schema.TaggedError<TurnRetriesExhausted>()("TurnRetriesExhausted", {
  turnId: Schema.String,
  attempts: Schema.Number
}) {
  override get message(): string {
    return `Turn "${this.turnId}" was started ${this.attempts - 1} times without finishing; it is not retried again`
  }
}

/**
 * A request to the entity, or its answer, was lost on the way: the cluster's or the RPC client's error
 * (`errorTag`: `MailboxFull`, `EntityNotAssignedToRunner`, `RpcClientError`, ...), a `Send` outside a running
 * turn that a stopping runner refused (`Draining`: send it again, the entity's next runner takes it), or an
 * answer that ended without the turn's messages (`errorTag` null).
 *
 * @since 0.1.0
 * @category reasons
 */
export class Undelivered extends Schema.TaggedError<Undelivered>()("Undelivered", {
  errorTag: Schema.NullOr(Schema.String),
  detail: Schema.String
}) {
  override get message(): string {
    return `The request to the agent session or its answer was lost${this.errorTag === null ? "" : ` (${this.errorTag})`}: ${this.detail}`
  }
}

/**
 * A turn id was asked again with another prompt: the id names the turn it was first given to (whose answer
 * the log keeps), so this one is not run. Give each new turn a new id.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TurnIdReused extends Schema.TaggedError<TurnIdReused>()("TurnIdReused", {
  turnId: Schema.String
}) {
  override get message(): string {
    return `Turn "${this.turnId}" was asked before with another prompt; a turn id names one prompt`
  }
}

/**
 * The turn's budget (the `budget` option's key, see `Budget` in effect-claude-code/governance) refused it before
 * it started, or stopped it once its spend crossed a limit.
 *
 * @since 0.1.0
 * @category reasons
 */
export class OverBudget extends Schema.TaggedError<OverBudget>()("OverBudget", {
  error: Budget.BudgetError
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.error.message
  }
}

/**
 * @since 0.1.0
 * @category errors
 */
export class AgentSessionError extends Schema.TaggedError<AgentSessionError>()("AgentSessionError", {
  reason: Schema.Union([SessionFailed, TurnRetriesExhausted, TurnIdReused, Undelivered, OverBudget])
}) {
  override get message(): string {
    return this.reason.message
  }
}

/**
 * The turn runs on the model; `attempt` is 2 when it was in flight before (a re-delivery).
 *
 * @since 0.1.0
 * @category events
 */
export class TurnStarted extends Schema.TaggedClass<TurnStarted>()("TurnStarted", {
  turnId: Schema.String,
  attempt: Schema.Number
}) {}

/**
 * The turn had finished before: the messages that follow come from the log, not the model.
 *
 * @since 0.1.0
 * @category events
 */
export class TurnReplayed extends Schema.TaggedClass<TurnReplayed>()("TurnReplayed", {
  turnId: Schema.String
}) {}

/**
 * One typed message of the turn, up to and including its result.
 *
 * @since 0.1.0
 * @category events
 */
export class TurnMessage extends Schema.TaggedClass<TurnMessage>()("TurnMessage", {
  message: WireMessage
}) {}

/**
 * @since 0.1.0
 * @category events
 */
export const TurnEvent = Schema.Union([TurnStarted, TurnReplayed, TurnMessage])

/**
 * @since 0.1.0
 * @category events
 */
export type TurnEvent = typeof TurnEvent.Type

/**
 * What `Info` answers: the entity now (its runner, CLI session and process), not a stored session's listing
 * (`SessionStore.SessionInfo`).
 *
 * @since 0.1.0
 * @category models
 */
export class EntityInfo extends Schema.Class<EntityInfo>("effect-claude-code/cluster/EntityInfo")({
  entityId: Schema.String,
  /** The runner holding the entity now (`host:port`); `null` on a runner without an address (tests). */
  runner: Schema.NullOr(Schema.String),
  /** The CLI session id the conversation continues, once there is one. */
  sessionId: Schema.NullOr(Schema.String),
  /** The CLI process serving the entity now; `null` when none runs (before the first request, after Close). */
  pid: Schema.NullOr(Schema.Number),
  model: Schema.NullOr(Schema.String),
  permissionMode: Schema.NullOr(PermissionModes.PermissionMode)
}) {}

/**
 * @since 0.1.0
 * @category rpcs
 */
export const Turn = Rpc.make("Turn", {
  payload: { turnId: Schema.String, prompt: Schema.String },
  success: TurnEvent,
  error: AgentSessionError,
  stream: true
}).annotate(ClusterSchema.Persisted, true)

/**
 * `Turn` without the cluster's persistence: for a caller that is durable itself (a workflow activity, re-run
 * after a crash), where a request persisted from inside a persisted workflow would not be delivered.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const ActivityTurn = Rpc.make("ActivityTurn", {
  payload: Turn.payloadSchema,
  success: TurnEvent,
  error: AgentSessionError,
  stream: true
})

/**
 * Writes a user message without waiting for a turn (see `Session.send`). Outside a running turn, a runner that
 * drains refuses it (`Undelivered` with `errorTag` `Draining`): send it again, and the entity's next runner takes it.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const Send = Rpc.make("Send", { payload: { prompt: Schema.String }, error: AgentSessionError })

/**
 * Ends the running turn (if any): its `Turn` stream ends with the CLI's interrupted result. A turn that has not
 * reached the CLI yet (the CLI still starting, a retry waiting) is interrupted as soon as it does.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const Interrupt = Rpc.make("Interrupt", { error: AgentSessionError })

/**
 * Closes the CLI session now; the next request starts it again, resuming the conversation.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const Close = Rpc.make("Close")

/**
 * @since 0.1.0
 * @category rpcs
 */
export const Info = Rpc.make("Info", { success: EntityInfo })

/**
 * `null` resets to the default model. Applies to the entity's CLI (once started, when it is starting) and is
 * kept in the {@link TurnLog.TurnLog} for the CLIs the entity starts later, on whichever runner.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const SetModel = Rpc.make("SetModel", {
  payload: { model: Schema.NullOr(Schema.String) },
  error: AgentSessionError
})

/**
 * Applies to the entity's CLI (once started, when it is starting) and is kept in the {@link TurnLog.TurnLog}
 * for the CLIs the entity starts later, on whichever runner: the mode the CLI reports in effect, when it names
 * one.
 *
 * @since 0.1.0
 * @category rpcs
 */
export const SetPermissionMode = Rpc.make("SetPermissionMode", {
  payload: { mode: PermissionModes.PermissionMode },
  error: AgentSessionError
})

export const rpcs = [Turn, ActivityTurn, Send, Interrupt, Close, Info, SetModel, SetPermissionMode] as const

/**
 * The RPCs of every agent session entity type.
 *
 * @since 0.1.0
 * @category rpcs
 */
export type Rpcs = typeof rpcs[number]
