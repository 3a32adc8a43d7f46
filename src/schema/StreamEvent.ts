/**
 * Raw Messages API stream events, carried by `stream_event` lines when the
 * CLI runs with `--include-partial-messages`. Unknown event or delta types
 * decode to {@link UnknownEvent} / {@link UnknownDelta}.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { AssistantApiMessage } from "./ApiMessage.ts"
import { ContentBlock } from "./ContentBlock.ts"
import {
  inputTransformations,
  JsonObject,
  Num,
  optionalNullableNumber,
  optionalNullableString,
  optionalUnknown,
  rawObject,
  unknownFallback
} from "./internal/fields.ts"
import { DeltaUsage } from "./Usage.ts"

/**
 * More text of a text block.
 *
 * @since 0.1.0
 * @category schemas
 */
export class TextDelta extends Schema.Class<TextDelta>("effect-claude-code/TextDelta")({
  _tag: Schema.tagDefaultOmit("TextDelta"),
  type: Schema.tag("text_delta"),
  text: Schema.String
}) {}

/**
 * More of a tool call's input, as a fragment of JSON text.
 *
 * @since 0.1.0
 * @category schemas
 */
export class InputJsonDelta extends Schema.Class<InputJsonDelta>("effect-claude-code/InputJsonDelta")({
  _tag: Schema.tagDefaultOmit("InputJsonDelta"),
  type: Schema.tag("input_json_delta"),
  partial_json: Schema.String
}) {}

/**
 * More thinking of a thinking block.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ThinkingDelta extends Schema.Class<ThinkingDelta>("effect-claude-code/ThinkingDelta")({
  _tag: Schema.tagDefaultOmit("ThinkingDelta"),
  type: Schema.tag("thinking_delta"),
  thinking: Schema.String,
  estimated_tokens: optionalNullableNumber
}) {}

/**
 * The signature of a thinking block, sent before the block stops.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SignatureDelta extends Schema.Class<SignatureDelta>("effect-claude-code/SignatureDelta")({
  _tag: Schema.tagDefaultOmit("SignatureDelta"),
  type: Schema.tag("signature_delta"),
  signature: Schema.String
}) {}

/**
 * A citation added to a text block.
 *
 * @since 0.1.0
 * @category schemas
 */
export class CitationsDelta extends Schema.Class<CitationsDelta>("effect-claude-code/CitationsDelta")({
  _tag: Schema.tagDefaultOmit("CitationsDelta"),
  type: Schema.tag("citations_delta"),
  citation: JsonObject
}) {}

/**
 * A delta whose `type` this version does not know; `raw` is the object as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownDelta extends Schema.Class<UnknownDelta>("effect-claude-code/UnknownDelta")({
  _tag: Schema.tag("UnknownDelta"),
  raw: rawObject("type")
}) {
  /**
   * The `type` this version did not know.
   *
   * @since 0.1.0
   */
  get type(): string {
    return this.raw.type
  }
}

/**
 * Any delta of a `content_block_delta` event, known or not.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Delta = Schema.Union([
  TextDelta,
  InputJsonDelta,
  ThinkingDelta,
  SignatureDelta,
  CitationsDelta,
  unknownFallback(
    UnknownDelta,
    ["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"],
    (raw) => new UnknownDelta({ raw }),
    (delta) => delta.raw
  )
])

/**
 * Any delta of a `content_block_delta` event, known or not.
 *
 * @since 0.1.0
 * @category models
 */
export type Delta = typeof Delta.Type

/**
 * A model response starts: its id, model and initial usage (content still empty).
 *
 * @since 0.1.0
 * @category schemas
 */
export class MessageStartEvent extends Schema.Class<MessageStartEvent>("effect-claude-code/MessageStartEvent")({
  _tag: Schema.tagDefaultOmit("MessageStartEvent"),
  type: Schema.tag("message_start"),
  message: AssistantApiMessage
}) {}

/**
 * A content block starts at `index`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContentBlockStartEvent extends Schema.Class<ContentBlockStartEvent>("effect-claude-code/ContentBlockStartEvent")({
  _tag: Schema.tagDefaultOmit("ContentBlockStartEvent"),
  type: Schema.tag("content_block_start"),
  index: Num,
  content_block: ContentBlock
}) {}

/**
 * A block at `index` grows by `delta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContentBlockDeltaEvent extends Schema.Class<ContentBlockDeltaEvent>("effect-claude-code/ContentBlockDeltaEvent")({
  _tag: Schema.tagDefaultOmit("ContentBlockDeltaEvent"),
  type: Schema.tag("content_block_delta"),
  index: Num,
  delta: Delta
}) {}

/**
 * The block at `index` is complete.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContentBlockStopEvent extends Schema.Class<ContentBlockStopEvent>("effect-claude-code/ContentBlockStopEvent")({
  _tag: Schema.tagDefaultOmit("ContentBlockStopEvent"),
  type: Schema.tag("content_block_stop"),
  index: Num
}) {}

/**
 * The response's stop reason and cumulative usage, once its content is complete.
 *
 * @since 0.1.0
 * @category schemas
 */
export class MessageDeltaEvent extends Schema.Class<MessageDeltaEvent>("effect-claude-code/MessageDeltaEvent")({
  _tag: Schema.tagDefaultOmit("MessageDeltaEvent"),
  type: Schema.tag("message_delta"),
  delta: Schema.Struct({
    stop_reason: optionalNullableString,
    stop_sequence: optionalNullableString,
    stop_details: optionalUnknown,
    container: optionalUnknown
  }),
  usage: Schema.optionalKey(DeltaUsage),
  context_management: optionalUnknown,
  input_transformations: inputTransformations
}) {}

/**
 * The response is complete.
 *
 * @since 0.1.0
 * @category schemas
 */
export class MessageStopEvent extends Schema.Class<MessageStopEvent>("effect-claude-code/MessageStopEvent")({
  _tag: Schema.tagDefaultOmit("MessageStopEvent"),
  type: Schema.tag("message_stop")
}) {}

/**
 * An event type this version does not know (e.g. `ping`, `error`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownEvent extends Schema.Class<UnknownEvent>("effect-claude-code/UnknownEvent")({
  _tag: Schema.tag("UnknownEvent"),
  raw: rawObject("type")
}) {
  /**
   * The `type` this version did not know.
   *
   * @since 0.1.0
   */
  get type(): string {
    return this.raw.type
  }
}

/**
 * Any Messages API stream event, known or not.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StreamEvent = Schema.Union([
  MessageStartEvent,
  ContentBlockStartEvent,
  ContentBlockDeltaEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStopEvent,
  unknownFallback(
    UnknownEvent,
    [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ],
    (raw) => new UnknownEvent({ raw }),
    (event) => event.raw
  )
])

/**
 * Any Messages API stream event, known or not.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamEvent = typeof StreamEvent.Type
