/**
 * The `result` line that ends a run, split by `subtype` into success and the
 * error subtypes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  envelope,
  JsonObject,
  Num,
  optionalBoolean,
  optionalNullableNumber,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalUnknown,
  replyFields
} from "./internal/fields.ts"
import * as Reasons from "./internal/startupFailureReason.ts"
import { Origin } from "./Origin.ts"
import { ModelUsageByModel, Usage } from "./Usage.ts"

const PermissionDenial = Schema.Struct({
  tool_name: Schema.String,
  tool_use_id: Schema.String,
  tool_input: JsonObject
})

/**
 * A tool call the permission system refused during the run.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionDenial = typeof PermissionDenial.Type

const DeferredToolUse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  input: JsonObject
})

/**
 * A tool call the run stopped at, to be answered later (a deferred tool).
 *
 * @since 0.1.0
 * @category models
 */
export type DeferredToolUse = typeof DeferredToolUse.Type

/**
 * Why Claude Code refused to start, so a host can offer the fix instead of a retry (as SDK 0.3.332 lists
 * them; `sideload_flags_disabled`: managed settings set `disableSideloadFlags` and the launch names plugins,
 * agents or MCP servers of its own). `ResultError.startup_failure_reason` also takes a reason a newer CLI
 * adds, as a string.
 *
 * @since 0.1.0
 * @category models
 */
export type StartupFailureReason = typeof Reasons.StartupFailureReason.Type

const InvalidConfigFile = Schema.Struct({
  path: Schema.String,
  is_global: Schema.Boolean,
  backup_searched: Schema.Boolean,
  backup_path: optionalString
})

/**
 * The config file that did not parse (`startup_failure_reason:
 * "config_file_invalid"`), and its backup. Read paths from here, never from
 * the text of `errors`.
 *
 * @since 0.1.0
 * @category models
 */
export type InvalidConfigFile = typeof InvalidConfigFile.Type

const SubagentStats = Schema.Struct({
  spawned: Num,
  requested: Schema.Struct({ background: Num, foreground: Num, unset: Num }),
  started_in_background: Num,
  by_type: Schema.Record(Schema.String, Num),
  max_depth: Num,
  spawned_by_subagents: Num,
  completed: Num,
  failed: Num,
  killed: Schema.Struct({ parent: Num, user: Num, system: Num }),
  refused: Schema.Struct({ depth_limit: Num, concurrency_limit: Num, budget: Num })
})

/**
 * Subagents of the run: spawned, by how they were requested and by type,
 * how deep, and how they ended (not in the SDK's types; CLI 2.1.330 writes it).
 *
 * @since 0.1.0
 * @category models
 */
export type SubagentStats = typeof SubagentStats.Type

const summaryFields = {
  type: Schema.tag("result"),
  duration_ms: Num,
  duration_api_ms: Num,
  is_error: Schema.Boolean,
  num_turns: Num,
  stop_reason: optionalNullableString,
  total_cost_usd: Num,
  usage: Usage,
  modelUsage: Schema.optionalKey(ModelUsageByModel),
  permission_denials: Schema.optionalKey(Schema.Array(PermissionDenial)),
  api_error_status: optionalNullableNumber,
  terminal_reason: optionalString,
  fast_mode_state: optionalString,
  fast_mode_disabled_reason: optionalString,
  ttft_ms: optionalNumber,
  ttft_stream_ms: optionalNumber,
  time_to_request_ms: optionalNumber,
  queued_turn_count: optionalNumber,
  result_index: optionalNumber,
  ...replyFields,
  credential_expires_at: optionalString,
  origin: Schema.optionalKey(Origin),
  // Written by CLI 2.1.330, not in the SDK's types.
  model_usage_since_last_result: Schema.optionalKey(ModelUsageByModel),
  subagent_stats: Schema.optionalKey(SubagentStats),
  safety_stops: optionalNumber,
  begun_message_ids: optionalStrings,
  ...envelope
}

// Timings of a successful turn, in milliseconds (`*_queued_behind` names what
// the first post waited for: `durable_post`, `ephemeral_post`, `retry_backoff`,
// `hold` or `none`).
const timingFields = {
  request_sent_wall_ms: optionalNumber,
  first_content_frame_ms: optionalNumber,
  first_stream_post_ms: optionalNumber,
  first_stream_post_ack_ms: optionalNumber,
  first_stream_post_queue_wait_ms: optionalNumber,
  first_stream_post_queued_behind: optionalString,
  first_stream_post_wall_ms: optionalNumber,
  first_text_post_ms: optionalNumber,
  first_text_post_queue_wait_ms: optionalNumber,
  first_text_post_queued_behind: optionalString,
  first_text_post_wall_ms: optionalNumber,
  time_to_request_from_spawn_ms: optionalNumber,
  time_origin_ms: optionalNumber
}

/**
 * A run that completed. Note that `is_error` can still be true (the corpus
 * holds such a line): check {@link ResultSuccess.isError}.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ResultSuccess extends Schema.Class<ResultSuccess>("effect-claude-code/ResultSuccess")({
  _tag: Schema.tagDefaultOmit("ResultSuccess"),
  subtype: Schema.tag("success"),
  result: Schema.String,
  structured_output: optionalUnknown,
  deferred_tool_use: Schema.optionalKey(DeferredToolUse),
  local_command: optionalString,
  warm_spare_claimed: optionalBoolean,
  api_error_type: optionalString,
  ...timingFields,
  ...summaryFields
}) {
  /**
   * Whether the CLI flagged the run as failed.
   *
   * @since 0.1.0
   */
  get isError(): boolean {
    return this.is_error
  }

  /**
   * Completed and not flagged as an error.
   *
   * @since 0.1.0
   */
  get isSuccess(): boolean {
    return !this.is_error
  }
}

/**
 * The error subtypes of `result`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorSubtype = Schema.Literals([
  "error_during_execution",
  "error_max_turns",
  "error_max_budget_usd",
  "error_max_structured_output_retries"
])

/**
 * A run that ended in an error; `errors` lists what went wrong (older CLIs
 * omit it).
 *
 * @since 0.1.0
 * @category schemas
 */
export class ResultError extends Schema.Class<ResultError>("effect-claude-code/ResultError")({
  _tag: Schema.tagDefaultOmit("ResultError"),
  subtype: ErrorSubtype,
  errors: optionalStrings,
  startup_failure_reason: Schema.optionalKey(Schema.Union([Reasons.StartupFailureReason, Schema.String])),
  invalid_config_file: Schema.optionalKey(InvalidConfigFile),
  ...summaryFields
}) {
  /**
   * Always true.
   *
   * @since 0.1.0
   */
  get isError(): boolean {
    return true
  }

  /**
   * Always false.
   *
   * @since 0.1.0
   */
  get isSuccess(): boolean {
    return false
  }
}

/**
 * The `result` line of a turn, successful or not.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultMessage = ResultSuccess | ResultError
