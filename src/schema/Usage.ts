/**
 * Token usage and cost, as written on assistant messages, `message_delta`
 * events and results, and the `/context` and `/usage` reports.
 *
 * Published as types (`effect-claude-code/schema`): read through the messages that carry them, whose
 * classes hold the schemas in their `fields`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  Num,
  optionalNullableNumber,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalUnknown
} from "./internal/fields.ts"

/**
 * Prompt-cache writes split by time to live.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheCreation = Schema.Struct({
  ephemeral_1h_input_tokens: Num,
  ephemeral_5m_input_tokens: Num
})

/**
 * @since 0.1.0
 * @category models
 */
export type CacheCreation = typeof CacheCreation.Type

/**
 * Server-side tool calls (web search, web fetch) counted by the API.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerToolUse = Schema.Struct({
  web_search_requests: Num,
  web_fetch_requests: optionalNumber
})

/**
 * @since 0.1.0
 * @category models
 */
export type ServerToolUse = typeof ServerToolUse.Type

const countedFields = {
  cache_creation_input_tokens: optionalNullableNumber,
  cache_read_input_tokens: optionalNullableNumber,
  server_tool_use: Schema.optionalKey(Schema.NullOr(ServerToolUse)),
  iterations: optionalUnknown,
  output_tokens_details: optionalUnknown,
  fallback_credit: optionalUnknown
}

/**
 * Usage of one API message or of a whole run (`result.usage`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class Usage extends Schema.Class<Usage>("effect-claude-code/Usage")({
  input_tokens: Num,
  output_tokens: Num,
  ...countedFields,
  cache_creation: Schema.optionalKey(Schema.NullOr(CacheCreation)),
  service_tier: optionalNullableString,
  inference_geo: optionalNullableString,
  speed: optionalNullableString
}) {
  /**
   * Every input token the model saw, cached or not.
   *
   * @since 0.1.0
   */
  get totalInputTokens(): number {
    return this.input_tokens + (this.cache_creation_input_tokens ?? 0) + (this.cache_read_input_tokens ?? 0)
  }

  /**
   * Input (including cache reads and writes) plus output tokens.
   *
   * @since 0.1.0
   */
  get totalTokens(): number {
    return this.totalInputTokens + this.output_tokens
  }
}

/**
 * Cumulative usage carried by a `message_delta` stream event (`input_tokens`
 * may be null there).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DeltaUsage = Schema.Struct({
  input_tokens: optionalNullableNumber,
  output_tokens: Num,
  ...countedFields
})

/**
 * Usage of a `message_delta` event.
 *
 * @since 0.1.0
 * @category models
 */
export type DeltaUsage = typeof DeltaUsage.Type

/**
 * Usage and cost for one model over a run (`result.modelUsage[model]`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelUsage = Schema.Struct({
  inputTokens: Num,
  outputTokens: Num,
  thinkingTokens: optionalNumber,
  cacheReadInputTokens: Num,
  cacheCreationInputTokens: Num,
  cacheCreationEphemeral5mInputTokens: optionalNumber,
  cacheCreationEphemeral1hInputTokens: optionalNumber,
  webSearchRequests: Num,
  costUSD: Num,
  contextWindow: optionalNumber,
  maxOutputTokens: optionalNumber,
  canonicalModel: optionalString,
  provider: optionalString,
  costBasis: optionalString
})

/**
 * Usage and cost of one model over a run.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelUsage = typeof ModelUsage.Type

/**
 * `modelUsage` of a result, keyed by model id.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelUsageByModel = Schema.Record(Schema.String, ModelUsage)

/**
 * @since 0.1.0
 * @category models
 */
export type ModelUsageByModel = typeof ModelUsageByModel.Type

/**
 * The context window in use, by category (`/context`): carried as
 * `context_usage` by the assistant message that delivers the report.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextUsage = Schema.Struct({
  model: Schema.String,
  total_tokens: Num,
  raw_max_tokens: Num,
  percentage: Num,
  /** `kind` is `hard_limit` or `compaction_window`. */
  over_limit: Schema.optionalKey(Schema.Struct({ tokens_over: Num, kind: Schema.String })),
  /** `kind` is `used`, `free`, `buffer` or `deferred`. */
  categories: Schema.Array(Schema.Struct({ name: Schema.String, tokens: Num, kind: Schema.String })),
  mcp_tools: Schema.Array(Schema.Struct({ name: Schema.String, server_name: Schema.String, tokens: Num })),
  memory_files: Schema.Array(Schema.Struct({ path: Schema.String, type: Schema.String, tokens: Num })),
  agents: Schema.Array(Schema.Struct({ agent_type: Schema.String, source: Schema.String, tokens: Num })),
  skills: Schema.optionalKey(Schema.Array(Schema.Struct({
    name: Schema.String,
    source: Schema.String,
    plugin_name: optionalString,
    tokens: Num
  })))
})

/**
 * The `/context` report.
 *
 * @since 0.1.0
 * @category models
 */
export type ContextUsage = typeof ContextUsage.Type

const displayName = Schema.optionalKey(Schema.NullOr(Schema.Struct({ display_name: Schema.String })))

/**
 * One usage meter of the plan, as the server sent it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UsageLimit = Schema.Struct({
  kind: Schema.String,
  group: Schema.String,
  percent: Num,
  resets_at: Schema.NullOr(Schema.String),
  scope: Schema.optionalKey(Schema.NullOr(Schema.Struct({ model: displayName, surface: displayName }))),
  severity: Schema.String,
  is_active: Schema.Boolean
})

/**
 * @since 0.1.0
 * @category models
 */
export type UsageLimit = typeof UsageLimit.Type

/**
 * The session's totals and the plan's usage (`/usage`): carried as
 * `usage_report` by the assistant message that delivers the report.
 * `rate_limits` is null when the CLI could not fetch them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UsageReport = Schema.Struct({
  session: Schema.Struct({
    total_cost_usd: Num,
    total_api_duration_ms: Num,
    total_duration_ms: Num,
    total_lines_added: Num,
    total_lines_removed: Num,
    model_usage: ModelUsageByModel
  }),
  rate_limits: Schema.NullOr(Schema.Struct({
    limits: Schema.NullOr(Schema.Array(UsageLimit)),
    extra_usage: Schema.optionalKey(Schema.NullOr(Schema.Struct({
      is_enabled: Schema.Boolean,
      monthly_limit: Schema.NullOr(Num),
      used_credits: Schema.NullOr(Num),
      utilization: Schema.NullOr(Num),
      currency: optionalNullableString
    })))
  }))
})

/**
 * The `/usage` report.
 *
 * @since 0.1.0
 * @category models
 */
export type UsageReport = typeof UsageReport.Type
