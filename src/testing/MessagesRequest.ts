/**
 * The body of a `POST /v1/messages` request as the scripted server sees it, and questions scripts ask
 * about it (how many assistant turns, the first user text, the last tool results).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  role: Schema.String,
  content: Schema.Union([Schema.String, Schema.Array(Schema.Record(Schema.String, Schema.Unknown))])
})

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * Only the fields the server routes on; the rest of the body is kept in the recorded request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MessagesRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Message),
  stream: Schema.optional(Schema.Boolean),
  max_tokens: Schema.optional(Schema.Number),
  tools: Schema.optional(Schema.Array(Schema.Record(Schema.String, Schema.Unknown)))
})

/**
 * @since 0.1.0
 * @category models
 */
export type MessagesRequest = typeof MessagesRequest.Type

/**
 * Decode a parsed JSON body; `None` when it is not a Messages API request.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode: (body: unknown) => Option.Option<MessagesRequest> = Schema.decodeUnknownOption(MessagesRequest)

const blocks = (message: Message): ReadonlyArray<Record<string, unknown>> =>
  typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content

const textOf = (message: Message): string =>
  blocks(message).flatMap((b) => b.type === "text" && typeof b.text === "string" ? [b.text] : []).join("\n")

/**
 * Assistant messages already in the conversation: the index of the turn being asked for.
 *
 * @since 0.1.0
 * @category getters
 */
export const assistantTurns = (request: MessagesRequest): number =>
  request.messages.filter((m) => m.role === "assistant").length

/**
 * Text of the first user message (the prompt; for a subagent, the Task prompt).
 *
 * @since 0.1.0
 * @category getters
 */
export const firstUserText = (request: MessagesRequest): string => {
  const first = request.messages.find((m) => m.role === "user")
  return first === undefined ? "" : textOf(first)
}

/**
 * Text of the last user message.
 *
 * @since 0.1.0
 * @category getters
 */
export const lastUserText = (request: MessagesRequest): string => {
  const last = request.messages.findLast((m) => m.role === "user")
  return last === undefined ? "" : textOf(last)
}

/**
 * A `tool_result` block sent back by the CLI.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly toolUseId: string
  readonly isError: boolean
  /** The result's text (text blocks joined by newlines). */
  readonly text: string
}

const toolResultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((c: unknown) =>
      typeof c === "object" && c !== null && "text" in c && typeof c.text === "string" ? [c.text] : []
    ).join("\n")
    : ""

/**
 * Every `tool_result` block in the conversation, oldest first.
 *
 * @since 0.1.0
 * @category getters
 */
export const toolResults = (request: MessagesRequest): ReadonlyArray<ToolResult> =>
  request.messages.flatMap((m) =>
    m.role !== "user" ? [] : blocks(m).flatMap((b) =>
      b.type === "tool_result"
        ? [{
          toolUseId: String(b.tool_use_id),
          isError: b.is_error === true,
          text: toolResultText(b.content)
        }]
        : []
    )
  )

/**
 * Predicate for {@link Script.conversation}: the first user message contains `fragment`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const firstUserTextIncludes = (fragment: string) => (request: MessagesRequest): boolean =>
  firstUserText(request).includes(fragment)

/**
 * Names of the tools offered to the model.
 *
 * @since 0.1.0
 * @category getters
 */
export const toolNames = (request: MessagesRequest): ReadonlyArray<string> =>
  (request.tools ?? []).flatMap((t) => typeof t.name === "string" ? [t.name] : [])
