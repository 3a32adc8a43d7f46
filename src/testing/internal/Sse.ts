/**
 * Messages API server-sent events for a scripted turn, and the reverse (parsing and reassembling a
 * stream) so the encoding can be checked.
 *
 * @since 0.1.0
 */
import type * as Script from "../Script.ts"

/**
 * One SSE event: its name and JSON data (the data's `type` equals the name, as Anthropic sends it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Event {
  readonly event: string
  readonly data: { readonly type: string; readonly [key: string]: unknown }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EncodeOptions {
  readonly messageId: string
  readonly model: string
  /** Prefix of generated tool_use ids (a tool block's own `id` wins). */
  readonly toolUseIdPrefix: string
}

/**
 * Split `s` into pieces of `size` code points, or into three (fewer when shorter) when `size` is
 * absent. Never splits a surrogate pair; an empty string stays one empty piece so its block still
 * gets a delta.
 *
 * @since 0.1.0
 * @category encoding
 */
export const chunks = (s: string, size?: number): ReadonlyArray<string> => {
  const points = Array.from(s)
  if (points.length === 0) return [""]
  const count = size === undefined
    ? Math.min(3, points.length)
    : Math.ceil(points.length / Math.max(1, size))
  return Array.from({ length: count }, (_, i) =>
    points.slice(Math.round((i * points.length) / count), Math.round(((i + 1) * points.length) / count)).join(""))
}

const event = (type: string, fields: Record<string, unknown> = {}): Event => ({ event: type, data: { type, ...fields } })

/**
 * The id a tool_use block is sent with.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toolUseId = (block: Script.ToolUseBlock, index: number, options: EncodeOptions): string =>
  block.id ?? `${options.toolUseIdPrefix}_${index}`

const blockEvents = (block: Script.Block, index: number, options: EncodeOptions, size?: number) => {
  switch (block.type) {
    case "text":
      return [
        event("content_block_start", { index, content_block: { type: "text", text: "" } }),
        ...chunks(block.text, size).map((text) =>
          event("content_block_delta", { index, delta: { type: "text_delta", text } })
        )
      ]
    case "thinking":
      return [
        event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }),
        ...chunks(block.thinking, size).map((thinking) =>
          event("content_block_delta", { index, delta: { type: "thinking_delta", thinking } })
        ),
        event("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } })
      ]
    case "tool_use":
      return [
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: toolUseId(block, index, options), name: block.name, input: {} }
        }),
        ...chunks(JSON.stringify(block.input ?? {}), size).map((partial_json) =>
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } })
        )
      ]
  }
}

/**
 * The full event sequence of a turn: `message_start`, `ping`, per block `content_block_start`, deltas
 * and `content_block_stop`, then `message_delta` (stop reason, output tokens) and `message_stop`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeTurn = (turn: Script.Turn, options: EncodeOptions): ReadonlyArray<Event> => [
  event("message_start", {
    message: {
      id: options.messageId,
      type: "message",
      role: "assistant",
      model: turn.model ?? options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: turn.usage.input_tokens,
        cache_creation_input_tokens: turn.usage.cache_creation_input_tokens,
        cache_read_input_tokens: turn.usage.cache_read_input_tokens,
        output_tokens: 1
      }
    }
  }),
  event("ping"),
  ...turn.content.flatMap((block, index) => [
    ...blockEvents(block, index, options, turn.chunkSize),
    event("content_block_stop", { index })
  ]),
  event("message_delta", {
    delta: { stop_reason: turn.stopReason, stop_sequence: null },
    usage: { output_tokens: turn.usage.output_tokens }
  }),
  event("message_stop")
]

/**
 * The wire form of one event.
 *
 * @since 0.1.0
 * @category encoding
 */
export const format = (e: Event): string => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`

/**
 * Parse an SSE body back into events (blank-line separated `event:` / `data:` fields).
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (body: string): ReadonlyArray<Event> =>
  body.split(/\r?\n\r?\n/).flatMap((frame) => {
    const lines = frame.split(/\r?\n/)
    const name = lines.find((l) => l.startsWith("event:"))?.slice(6).trim()
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n")
    return name === undefined || data === "" ? [] : [{ event: name, data: JSON.parse(data) }]
  })

/**
 * The message a client reassembles from events, as the Anthropic SDK does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Assembled {
  readonly id: string
  readonly content: ReadonlyArray<Record<string, unknown>>
  readonly stopReason: string | null
  readonly outputTokens: number
}

/**
 * Reassemble a message from its events (text and thinking deltas concatenated, tool input JSON parsed).
 *
 * @since 0.1.0
 * @category decoding
 */
export const assemble = (events: ReadonlyArray<Event>): Assembled => {
  let id = ""
  let stopReason: string | null = null
  let outputTokens = 0
  const content: Array<Record<string, unknown>> = []
  const json: Array<string> = []
  for (const { data } of events) {
    const index = data.index as number
    const delta = data.delta as Record<string, any> | undefined
    switch (data.type) {
      case "message_start":
        id = (data.message as { id: string }).id
        break
      case "content_block_start":
        content[index] = { ...(data.content_block as object) }
        json[index] = ""
        break
      case "content_block_delta":
        if (delta?.type === "text_delta") content[index].text += delta.text
        if (delta?.type === "thinking_delta") content[index].thinking += delta.thinking
        if (delta?.type === "signature_delta") content[index].signature = delta.signature
        if (delta?.type === "input_json_delta") json[index] += delta.partial_json
        break
      case "content_block_stop":
        if (content[index].type === "tool_use") content[index].input = JSON.parse(json[index] || "{}")
        break
      case "message_delta":
        stopReason = delta?.stop_reason ?? null
        outputTokens = (data.usage as { output_tokens: number }).output_tokens
        break
    }
  }
  return { id, content, stopReason, outputTokens }
}

/**
 * A non-streaming `message` body (side requests such as title generation).
 *
 * @since 0.1.0
 * @category encoding
 */
export const nonStreamingMessage = (text: string, options: { readonly messageId: string; readonly model: string }) => ({
  id: options.messageId,
  type: "message",
  role: "assistant",
  model: options.model,
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
})

/**
 * Anthropic's error JSON.
 *
 * @since 0.1.0
 * @category encoding
 */
export const errorBody = (error: Script.ApiError, requestId: string) => ({
  type: "error",
  error: { type: error.type, message: error.message },
  request_id: requestId
})
