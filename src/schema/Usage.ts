/**
 * Token usage and cost, as written on assistant messages, `message_delta`
 * events and results.
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
 * Server-side tool calls (web search, web fetch) counted by the API.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerToolUse = Schema.Struct({
  web_search_requests: Num,
  web_fetch_requests: optionalNumber
})

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
