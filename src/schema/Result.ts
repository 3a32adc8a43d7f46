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
  optionalNullableNumber,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalUnknown
} from "./internal/fields.ts"
import { ModelUsageByModel, Usage } from "./Usage.ts"

/**
 * A tool call the permission system refused during the run.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionDenial = Schema.Struct({
  tool_name: Schema.String,
  tool_use_id: Schema.String,
  tool_input: JsonObject
})

/**
 * @since 0.1.0
 * @category models
 */
export type PermissionDenial = typeof PermissionDenial.Type

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
  ...envelope
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
  errors: Schema.optionalKey(Schema.Array(Schema.String)),
  startup_failure_reason: optionalUnknown,
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
 * @since 0.1.0
 * @category models
 */
export type ResultMessage = ResultSuccess | ResultError
