/**
 * Top-level lines that are neither conversation turns nor `system` lines:
 * tool progress, auth status, summaries, rate limits, suggestions, resets,
 * the active goal and transcript mirror frames.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { envelope, JsonObject, Num, optionalBoolean, optionalNumber, optionalString } from "./internal/fields.ts"

/**
 * A tool call is still running (`elapsed_time_seconds` so far), written while long tools run.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolProgress extends Schema.Class<ToolProgress>("effect-claude-code/ToolProgress")({
  _tag: Schema.tagDefaultOmit("ToolProgress"),
  type: Schema.tag("tool_progress"),
  tool_use_id: Schema.String,
  tool_name: Schema.String,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  elapsed_time_seconds: Num,
  task_id: optionalString,
  heartbeat: optionalBoolean,
  subagent_type: optionalString,
  subagent_retry: Schema.optionalKey(JsonObject),
  ...envelope
}) {}

/**
 * Progress of an authentication the CLI runs (its `output` lines), or its `error`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AuthStatus extends Schema.Class<AuthStatus>("effect-claude-code/AuthStatus")({
  _tag: Schema.tagDefaultOmit("AuthStatus"),
  type: Schema.tag("auth_status"),
  isAuthenticating: Schema.Boolean,
  output: Schema.Array(Schema.String),
  error: optionalString,
  ...envelope
}) {}

/**
 * A one-line summary of the tool calls `preceding_tool_use_ids`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolUseSummary extends Schema.Class<ToolUseSummary>("effect-claude-code/ToolUseSummary")({
  _tag: Schema.tagDefaultOmit("ToolUseSummary"),
  type: Schema.tag("tool_use_summary"),
  summary: Schema.String,
  preceding_tool_use_ids: Schema.Array(Schema.String),
  ...envelope
}) {}

const RateLimitInfo = Schema.Struct({
  status: Schema.String,
  resetsAt: optionalNumber,
  rateLimitType: optionalString,
  utilization: optionalNumber,
  overageStatus: optionalString,
  overageResetsAt: optionalNumber,
  overageDisabledReason: optionalString,
  isUsingOverage: optionalBoolean,
  overageInUse: optionalBoolean,
  overageEnabled: optionalBoolean,
  surpassedThreshold: optionalNumber,
  limitScope: optionalString,
  errorCode: optionalString,
  canUserPurchaseCredits: optionalBoolean,
  hasChargeableSavedPaymentMethod: optionalBoolean
})

/**
 * Subscription rate-limit state.
 *
 * @since 0.1.0
 * @category models
 */
export type RateLimitInfo = typeof RateLimitInfo.Type

/**
 * The subscription's rate-limit state changed (allowed, warning, rejected) and when it resets.
 *
 * @since 0.1.0
 * @category schemas
 */
export class RateLimitEvent extends Schema.Class<RateLimitEvent>("effect-claude-code/RateLimitEvent")({
  _tag: Schema.tagDefaultOmit("RateLimitEvent"),
  type: Schema.tag("rate_limit_event"),
  rate_limit_info: RateLimitInfo,
  ...envelope
}) {}

/**
 * A prompt the CLI suggests the user send next.
 *
 * @since 0.1.0
 * @category schemas
 */
export class PromptSuggestion extends Schema.Class<PromptSuggestion>("effect-claude-code/PromptSuggestion")({
  _tag: Schema.tagDefaultOmit("PromptSuggestion"),
  type: Schema.tag("prompt_suggestion"),
  suggestion: Schema.String,
  ...envelope
}) {}

/**
 * The conversation was reset (e.g. `/clear`): what follows belongs to `new_conversation_id`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ConversationReset extends Schema.Class<ConversationReset>("effect-claude-code/ConversationReset")({
  _tag: Schema.tagDefaultOmit("ConversationReset"),
  type: Schema.tag("conversation_reset"),
  new_conversation_id: Schema.String,
  trigger: optionalString,
  user_message_uuid: optionalString,
  timestamp: optionalString,
  ...envelope
}) {}

const Goal = Schema.Struct({
  condition: Schema.String,
  iterations: Num,
  set_at: Num,
  tokens_at_start: Num,
  last_reason: optionalString
})

/**
 * The goal set by `/goal`, as its Stop hook last judged it.
 *
 * @since 0.1.0
 * @category models
 */
export type Goal = typeof Goal.Type

/**
 * The `/goal` Stop hook reported: `value` is the goal not met yet (with its
 * iterations and last reason), or null once it is met and cleared.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ActiveGoal extends Schema.Class<ActiveGoal>("effect-claude-code/ActiveGoal")({
  _tag: Schema.tagDefaultOmit("ActiveGoal"),
  type: Schema.tag("active_goal"),
  value: Schema.NullOr(Goal),
  ...envelope
}) {}

/**
 * The lines the CLI just saved to one transcript file (`filePath`), as a frame on stdout: written with
 * `--session-mirror`, which the `sessionStore` option passes, so that the library appends them to the store
 * (and takes the frame out of the run's messages). `entries` are kept as written, every field, so that the
 * store holds what the file holds; `Transcript.mirroredEntries` (`effect-claude-code/transcript`) decodes them.
 *
 * @since 0.1.0
 * @category schemas
 */
export class TranscriptMirror extends Schema.Class<TranscriptMirror>("effect-claude-code/TranscriptMirror")({
  _tag: Schema.tagDefaultOmit("TranscriptMirror"),
  type: Schema.tag("transcript_mirror"),
  filePath: Schema.String,
  entries: Schema.Array(Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [JsonObject]))
}) {}
