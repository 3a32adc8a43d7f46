/**
 * zod 4 schemas for the main stream-json message kinds, checking what the
 * library's schemas check (every field the SDK types name, content blocks,
 * stream events), and letting unknown fields and unknown message types through.
 * Used by variant (c) only.
 */
import { z } from "zod"

const nullish = <T extends z.ZodType>(t: T) => t.nullable().optional()

const Usage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: nullish(z.number()),
  cache_read_input_tokens: nullish(z.number()),
  service_tier: nullish(z.string())
})

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() })
const ThinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() })
const RedactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() })
const ToolUseBlock = z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() })
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional()
})
const ImageBlock = z.looseObject({ type: z.literal("image"), source: z.looseObject({ type: z.string() }) })

const AssistantBlock = z.discriminatedUnion("type", [TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock])
const UserBlock = z.discriminatedUnion("type", [TextBlock, ToolResultBlock, ImageBlock])

const Envelope = {
  session_id: z.string(),
  parent_tool_use_id: z.string().nullable(),
  uuid: z.string().optional()
}

const System = z.looseObject({
  type: z.literal("system"),
  subtype: z.string(),
  session_id: z.string(),
  uuid: z.string().optional(),
  cwd: z.string().optional(),
  tools: z.array(z.string()).optional(),
  mcp_servers: z.array(z.looseObject({ name: z.string(), status: z.string() })).optional(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
  slash_commands: z.array(z.string()).optional(),
  apiKeySource: z.string().optional()
})

const Assistant = z.looseObject({
  type: z.literal("assistant"),
  message: z.looseObject({
    id: z.string(),
    type: z.literal("message"),
    role: z.literal("assistant"),
    model: z.string(),
    content: z.array(AssistantBlock),
    stop_reason: z.string().nullable(),
    stop_sequence: z.string().nullable(),
    usage: Usage
  }),
  ...Envelope
})

const User = z.looseObject({
  type: z.literal("user"),
  message: z.looseObject({ role: z.literal("user"), content: z.union([z.string(), z.array(UserBlock)]) }),
  tool_use_result: z.unknown().optional(),
  ...Envelope
})

const Result = z.looseObject({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.boolean(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number(),
  result: z.string().optional(),
  session_id: z.string(),
  total_cost_usd: z.number(),
  usage: Usage,
  modelUsage: z.record(z.string(), z.looseObject({ inputTokens: z.number(), outputTokens: z.number(), costUSD: z.number() })).optional(),
  permission_denials: z.array(z.unknown()).optional(),
  uuid: z.string().optional()
})

const Delta = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text_delta"), text: z.string() }),
  z.looseObject({ type: z.literal("thinking_delta"), thinking: z.string() }),
  z.looseObject({ type: z.literal("signature_delta"), signature: z.string() }),
  z.looseObject({ type: z.literal("input_json_delta"), partial_json: z.string() })
])

const Event = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("message_start"),
    message: z.looseObject({ id: z.string(), model: z.string(), content: z.array(z.unknown()), usage: Usage })
  }),
  z.looseObject({ type: z.literal("content_block_start"), index: z.number(), content_block: AssistantBlock }),
  z.looseObject({ type: z.literal("content_block_delta"), index: z.number(), delta: Delta }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number() }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullable(), stop_sequence: z.string().nullable() }),
    usage: z.looseObject({ output_tokens: z.number() })
  }),
  z.looseObject({ type: z.literal("message_stop") })
])

const StreamEvent = z.looseObject({ type: z.literal("stream_event"), event: Event, ...Envelope })

const Known = z.discriminatedUnion("type", [System, Assistant, User, Result, StreamEvent])
const knownTypes = new Set(["system", "assistant", "user", "result", "stream_event"])
const Unknown = z.looseObject({ type: z.string() })

/** Validates one parsed line; unknown message types pass as long as they have a string `type`. */
export const validate = (json: unknown): boolean => {
  const type = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined
  return typeof type === "string" && knownTypes.has(type)
    ? Known.safeParse(json).success
    : Unknown.safeParse(json).success
}
