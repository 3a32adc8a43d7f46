/**
 * The Messages API payloads the CLI wraps: `assistant.message`,
 * `user.message` and `message_start.message`.
 *
 * Published as types (`effect-claude-code/schema`): the payload is read through the message that carries it;
 * the schemas are the `message` fields of the message classes (`AssistantMessage.fields.message`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ContentBlock from "./ContentBlock.ts"
import { inputTransformations, optionalNullableString, optionalUnknown } from "./internal/fields.ts"
import { Usage } from "./Usage.ts"

/**
 * A model response as the API returned it.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AssistantApiMessage extends Schema.Class<AssistantApiMessage>("effect-claude-code/AssistantApiMessage")({
  id: Schema.String,
  type: Schema.optionalKey(Schema.Literal("message")),
  role: Schema.Literal("assistant"),
  model: Schema.String,
  content: Schema.Array(ContentBlock.ContentBlock),
  stop_reason: optionalNullableString,
  stop_sequence: optionalNullableString,
  stop_details: optionalUnknown,
  usage: Usage,
  container: optionalUnknown,
  context_management: optionalUnknown,
  diagnostics: optionalUnknown,
  input_transformations: inputTransformations
}) {}

/**
 * A user turn: a prompt, or tool results.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UserApiMessage extends Schema.Class<UserApiMessage>("effect-claude-code/UserApiMessage")({
  role: Schema.Literal("user"),
  content: ContentBlock.Content
}) {}
