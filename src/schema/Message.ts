/**
 * Every top-level line the CLI writes in stream-json mode, as one tagged
 * union, with a fast synchronous decoder and the matching encoder. An unknown
 * `type`/`subtype` decodes to {@link UnknownMessage}; a known `type` with
 * broken fields is a {@link MessageDecodeError}; unknown extra fields are
 * ignored.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaIssue from "effect/SchemaIssue"
import { AssistantApiMessage, UserApiMessage } from "./ApiMessage.ts"
import * as ContentBlock from "./ContentBlock.ts"
import * as Control from "./Control.ts"
import * as FastDecode from "./internal/fastDecode.ts"
import {
  envelope,
  JsonObject,
  optionalBoolean,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalTrue,
  optionalUnknown,
  replyFields
} from "./internal/fields.ts"
import { Origin } from "./Origin.ts"
import * as ResultMessage from "./Result.ts"
import * as SessionEvent from "./SessionEvent.ts"
import { StreamEvent } from "./StreamEvent.ts"
import * as System from "./System.ts"
import * as ToolUseResult from "./ToolUseResult.ts"
import { ContextUsage, UsageReport } from "./Usage.ts"

const turnFields = {
  parent_tool_use_id: Schema.NullOr(Schema.String),
  timestamp: optionalString,
  agent_id: optionalString,
  subagent_type: optionalString,
  task_description: optionalString
}

// Written beside the API message by CLI 2.1.330, not in the SDK's types.
const apiErrorFields = {
  is_api_error_message: optionalBoolean,
  api_error_status: optionalNumber,
  api_error_type: optionalString
}

/**
 * A complete model turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AssistantMessage extends Schema.Class<AssistantMessage>("effect-claude-code/AssistantMessage")({
  _tag: Schema.tagDefaultOmit("AssistantMessage"),
  type: Schema.tag("assistant"),
  message: AssistantApiMessage,
  error: optionalString,
  request_id: optionalString,
  ...replyFields,
  resumed_from_incomplete_thinking: optionalTrue,
  supersedes: optionalStrings,
  aborted: optionalTrue,
  context_usage: Schema.optionalKey(ContextUsage),
  usage_report: Schema.optionalKey(UsageReport),
  ...apiErrorFields,
  thinking_display: optionalString,
  thinking_duration_ms: optionalNumber,
  ...turnFields,
  ...envelope
}) {
  /**
   * The content blocks of the turn.
   *
   * @since 0.1.0
   */
  get content(): ReadonlyArray<ContentBlock.ContentBlock> {
    return this.message.content
  }

  /**
   * The text blocks, joined by newlines.
   *
   * @since 0.1.0
   */
  get text(): string {
    return ContentBlock.text(this.message.content)
  }

  /**
   * The client tool calls of the turn.
   *
   * @since 0.1.0
   */
  get toolUses(): ReadonlyArray<ContentBlock.ToolUseBlock> {
    return ContentBlock.filterTag(this.message.content, "ToolUseBlock")
  }

  /**
   * The thinking blocks of the turn.
   *
   * @since 0.1.0
   */
  get thinking(): ReadonlyArray<ContentBlock.ThinkingBlock> {
    return ContentBlock.filterTag(this.message.content, "ThinkingBlock")
  }
}

const userFields = {
  type: Schema.tag("user"),
  message: UserApiMessage,
  isSynthetic: optionalBoolean,
  tool_use_result: optionalUnknown,
  tool_result_meta: Schema.optionalKey(Schema.Array(ToolUseResult.ToolResultMeta)),
  priority: optionalString,
  origin: Schema.optionalKey(Origin),
  shouldQuery: optionalBoolean,
  client_composed: optionalTrue,
  ...turnFields
}

/**
 * What user turns offer beyond their fields.
 *
 * @since 0.1.0
 * @category models
 */
export interface UserAccessors {
  /** The tool results the turn carries. */
  readonly toolResults: ReadonlyArray<ContentBlock.ToolResultBlock>
  /** The text of the turn (a plain prompt, or its text blocks). */
  readonly text: string
  /** The CLI's structured tool output (`tool_use_result`) told apart by shape; `undefined` when absent. */
  readonly toolUseResult: ToolUseResult.Classified | undefined
}

// Each accessor computes only its own value: they are read on hot paths (telemetry, filters).
const toolResultsOf = (message: UserApiMessage) => ContentBlock.filterTag(message.content, "ToolResultBlock")
const classified = (toolUseResult: unknown) =>
  toolUseResult === undefined ? undefined : ToolUseResult.classify(toolUseResult)

/**
 * A user turn: a prompt, or the tool results of the previous turn
 * (`tool_use_result` keeps the CLI's structured tool output as written).
 * Never a replay: a line with `isReplay: true` is a {@link UserMessageReplay}
 * or, when its fields do not fit that, no message at all.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UserMessage extends Schema.Class<UserMessage>("effect-claude-code/UserMessage")({
  _tag: Schema.tagDefaultOmit("UserMessage"),
  // A replay that UserMessageReplay rejects must not pass for a turn here (dropping `isReplay`).
  isReplay: Schema.optionalKey(Schema.Literal(false)),
  uuid: optionalString,
  session_id: optionalString,
  pasted_content: Schema.optionalKey(Schema.Array(ContentBlock.Content)),
  inline_pastes: optionalStrings,
  ...userFields
}) implements UserAccessors {
  /** @since 0.1.0 */
  get toolResults() {
    return toolResultsOf(this.message)
  }
  /** @since 0.1.0 */
  get text() {
    return ContentBlock.text(this.message.content)
  }
  /** @since 0.1.0 */
  get toolUseResult() {
    return classified(this.tool_use_result)
  }
}

/**
 * A user turn replayed from a resumed session (`isReplay: true`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class UserMessageReplay extends Schema.Class<UserMessageReplay>("effect-claude-code/UserMessageReplay")({
  _tag: Schema.tagDefaultOmit("UserMessageReplay"),
  isReplay: Schema.Literal(true),
  file_attachments: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  ...userFields,
  ...envelope
}) implements UserAccessors {
  /** @since 0.1.0 */
  get toolResults() {
    return toolResultsOf(this.message)
  }
  /** @since 0.1.0 */
  get text() {
    return ContentBlock.text(this.message.content)
  }
  /** @since 0.1.0 */
  get toolUseResult() {
    return classified(this.tool_use_result)
  }
}

/**
 * A raw API stream event (`--include-partial-messages`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class StreamEventMessage extends Schema.Class<StreamEventMessage>("effect-claude-code/StreamEventMessage")({
  _tag: Schema.tagDefaultOmit("StreamEventMessage"),
  type: Schema.tag("stream_event"),
  event: StreamEvent,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  ttft_ms: optionalNumber,
  ...replyFields,
  // Written by CLI 2.1.330, not in the SDK's types.
  api_message_id: optionalString,
  thinking_display: optionalString,
  ...envelope
}) {}

/**
 * A line whose `type` (or `subtype`) this version does not know. `raw` is
 * the object as written; encoding gives it back unchanged.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownMessage extends Schema.Class<UnknownMessage>("effect-claude-code/UnknownMessage")({
  _tag: Schema.tag("UnknownMessage"),
  raw: Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [JsonObject])
}) {
  /**
   * The `type` this version did not know.
   *
   * @since 0.1.0
   */
  get type(): string {
    return this.raw.type
  }

  /**
   * The `subtype`, when the line has a string one.
   *
   * @since 0.1.0
   */
  get subtype(): string | undefined {
    return typeof this.raw.subtype === "string" ? this.raw.subtype : undefined
  }
}

/**
 * Every known variant, in dispatch order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const variants = [
  AssistantMessage,
  // Before UserMessage, which only takes lines that are not replays.
  UserMessageReplay,
  UserMessage,
  StreamEventMessage,
  ResultMessage.ResultSuccess,
  ResultMessage.ResultError,
  ...System.variants,
  SessionEvent.ToolProgress,
  SessionEvent.AuthStatus,
  SessionEvent.ToolUseSummary,
  SessionEvent.RateLimitEvent,
  SessionEvent.PromptSuggestion,
  SessionEvent.ConversationReset,
  SessionEvent.ActiveGoal,
  SessionEvent.TranscriptMirror,
  Control.ControlRequest,
  Control.ControlResponse,
  Control.ControlCancelRequest,
  Control.KeepAlive
] as const

/**
 * Any line of a stream-json transcript.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = InstanceType<typeof variants[number]> | UnknownMessage

/**
 * A known (non-fallback) message.
 *
 * @since 0.1.0
 * @category models
 */
export type KnownMessage = Exclude<Message, UnknownMessage>

/**
 * Whether `message` is a turn's `result` line, successful or not (`ResultSuccess` or `ResultError`; a result of a
 * subtype this version does not know is an `UnknownMessage`).
 *
 * @example
 * ```ts
 * import * as Stream from "effect/Stream"
 * import { Message } from "effect-claude-code/schema"
 *
 * declare const messages: Stream.Stream<Message.Message>
 * const results = messages.pipe(Stream.filter(Message.isResultMessage))
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isResultMessage = (message: Message): message is ResultMessage.ResultMessage =>
  message._tag === "ResultSuccess" || message._tag === "ResultError"

// What every reason carries: the wire type and subtype when the line names them, and what was wrong.
const messageFields = {
  messageType: Schema.optional(Schema.String),
  subtype: Schema.optional(Schema.String),
  detail: Schema.String
}

const describeFailure = (
  self: { readonly messageType?: string | undefined; readonly subtype?: string | undefined; readonly detail: string },
  reason: string
): string => {
  const kind = self.messageType === undefined
    ? "message"
    : `"${self.messageType}${self.subtype === undefined ? "" : `/${self.subtype}`}" message`
  return `Invalid ${kind} (${reason}): ${self.detail}`
}

/**
 * The JSON value is not an object (a number, an array, `null`, ...).
 *
 * @since 0.1.0
 * @category reasons
 */
export class NotAnObject extends Schema.TaggedError<NotAnObject>()("NotAnObject", messageFields) {
  override get message(): string {
    return describeFailure(this, "NotAnObject")
  }
}

/**
 * The object has no string `type` field.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingType extends Schema.TaggedError<MissingType>()("MissingType", messageFields) {
  override get message(): string {
    return describeFailure(this, "MissingType")
  }
}

/**
 * The object's `type` has subtypes (`system`, `result`) but it has no string `subtype` field.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingSubtype extends Schema.TaggedError<MissingSubtype>()("MissingSubtype", messageFields) {
  override get message(): string {
    return describeFailure(this, "MissingSubtype")
  }
}

/**
 * A known `type` (and `subtype`) whose fields do not fit its schema; `issue` holds the schema issue, with the
 * path to the offending field.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidFields extends Schema.TaggedError<InvalidFields>()("InvalidFields", {
  ...messageFields,
  issue: Schema.declare<SchemaIssue.Issue>(SchemaIssue.isIssue)
}) {
  override get message(): string {
    return describeFailure(this, "InvalidFields")
  }
}

/**
 * Every reason a `MessageDecodeError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const MessageDecodeErrorReason = Schema.Union([NotAnObject, MissingType, MissingSubtype, InvalidFields])

/**
 * @since 0.1.0
 * @category errors
 */
export type MessageDecodeErrorReason = typeof MessageDecodeErrorReason.Type

/**
 * A JSON value that is not a valid message: not an object, no string `type`, no `subtype` where its type needs
 * one, or a known `type` whose fields do not match. Recover by reason with
 * `Effect.catchReason("MessageDecodeError", "InvalidFields", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class MessageDecodeError extends Schema.TaggedError<MessageDecodeError>()("MessageDecodeError", {
  reason: MessageDecodeErrorReason
}) {
  /**
   * The line's `type`, when it has one.
   *
   * @since 0.1.0
   */
  get messageType(): string | undefined {
    return this.reason.messageType
  }
  /**
   * The line's `subtype`, when it has one.
   *
   * @since 0.1.0
   */
  get subtype(): string | undefined {
    return this.reason.subtype
  }
  /**
   * What was wrong, readable.
   *
   * @since 0.1.0
   */
  get detail(): string {
    return this.reason.detail
  }
  override get message(): string {
    return this.reason.message
  }
}

type Decoder = (input: unknown) => Result.Result<Message, Schema.SchemaError>

// Wire discriminators of a class, read from its `type`/`subtype` field schemas.
const literalOf = (schema: Schema.Top | undefined): ReadonlyArray<string> => {
  const ast = schema?.ast
  if (ast === undefined) return []
  if (ast._tag === "Literal" && typeof ast.literal === "string") return [ast.literal]
  if (ast._tag === "Union") return ast.types.flatMap((t) => literalOf(Schema.make(t)))
  return []
}

const byType = new Map<string, Decoder>()
const bySubtype = new Map<string, Map<string, Decoder>>()
const encoders = new Map<string, (message: Message) => unknown>()

for (const variant of variants) {
  if (variant === UserMessageReplay) continue // dispatched on `isReplay` below
  const decode = FastDecode.decodeUnknownResult(variant) as Decoder
  const fields = variant.fields as Record<string, Schema.Top>
  const [type] = literalOf(fields.type)
  const subtypes = literalOf(fields.subtype)
  if (subtypes.length === 0) byType.set(type, decode)
  else {
    const table = bySubtype.get(type) ?? new Map<string, Decoder>()
    for (const subtype of subtypes) table.set(subtype, decode)
    bySubtype.set(type, table)
  }
}
for (const variant of variants) {
  const encode = Schema.encodeSync(variant as Schema.Codec<unknown, unknown>)
  encoders.set(variant.identifier.slice("effect-claude-code/".length), encode)
}

const decodeUser = byType.get("user")!
const decodeUserReplay = FastDecode.decodeUnknownResult(UserMessageReplay) as Decoder

/**
 * Whether `type` (and `subtype`) name a known variant.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownType = (type: string, subtype?: string): boolean => {
  const table = bySubtype.get(type)
  return table === undefined ? byType.has(type) : subtype !== undefined && table.has(subtype)
}

const fail = (reason: MessageDecodeErrorReason) => Result.fail(new MessageDecodeError({ reason }))

const describe = (input: unknown): string =>
  input === null ? "null" : Array.isArray(input) ? "an array" : typeof input

/**
 * Decodes one parsed JSON line. Synchronous and allocation-light: meant for
 * the hot path of a transcript decoder.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeMessage = (input: unknown): Result.Result<Message, MessageDecodeError> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return fail(new NotAnObject({ detail: `expected a JSON object, got ${describe(input)}` }))
  }
  const raw = input as { readonly [k: string]: unknown }
  const type = raw.type
  if (typeof type !== "string") {
    return fail(new MissingType({ detail: `expected a string "type" field, got ${describe(type)}` }))
  }
  const subtype = typeof raw.subtype === "string" ? raw.subtype : undefined
  let decode: Decoder | undefined
  const table = bySubtype.get(type)
  if (table !== undefined) {
    if (subtype === undefined) {
      return fail(new MissingSubtype({ messageType: type, detail: `expected a string "subtype" field, got ${describe(raw.subtype)}` }))
    }
    decode = table.get(subtype)
  } else if (type === "user") {
    decode = raw.isReplay === true ? decodeUserReplay : decodeUser
  } else {
    decode = byType.get(type)
  }
  if (decode === undefined) {
    return Result.succeed(new UnknownMessage({ raw: raw as UnknownMessage["raw"] }))
  }
  const result = decode(input)
  return Result.isSuccess(result)
    ? result as Result.Result<Message, never>
    : fail(new InvalidFields({ messageType: type, subtype, detail: result.failure.message, issue: result.failure.issue }))
}

/**
 * The wire JSON of a message: snake_case, known fields only (absent optional
 * fields stay absent); an {@link UnknownMessage} gives back its raw object.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeMessage = (message: Message): { readonly [k: string]: unknown } =>
  message._tag === "UnknownMessage"
    ? message.raw
    : encoders.get(message._tag)!(message) as { readonly [k: string]: unknown }

const UnknownMessageFromRaw = Schema.StructWithRest(
  Schema.Struct({ type: Schema.String }),
  [JsonObject]
).check(
  Schema.makeFilter((raw) =>
    !isKnownType(raw.type as string, typeof raw.subtype === "string" ? raw.subtype : undefined) ||
    `"${raw.type}" is a known type; its fields do not match`
  )
).pipe(Schema.decodeTo(Schema.toType(UnknownMessage), {
  decode: SchemaGetter.transform((raw) => new UnknownMessage({ raw })),
  encode: SchemaGetter.transform((message) => message.raw as never)
}))

/**
 * The whole union as one schema, for composition (e.g. inside your own
 * structs). For decoding lines prefer {@link decodeMessage}, which dispatches
 * directly and reports errors against the right variant.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message: Schema.Codec<Message, { readonly [k: string]: unknown }> = Schema.Union([
  ...variants,
  UnknownMessageFromRaw
]) as never
