/**
 * Content blocks of assistant and user messages (and of `content_block_start`
 * events). Every block is a class with a `_tag`; a block whose `type` is not
 * known decodes to {@link UnknownBlock}, keeping the raw object.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  cacheControl,
  JsonObject,
  rawObject,
  optionalBoolean,
  optionalNullableString,
  optionalUnknown,
  unknownFallback
} from "./internal/fields.ts"

/**
 * Text from the model (or of a prompt), with its citations when the model cited sources. The blocks of a
 * prompt may carry the request's `cache_control` breakpoint, kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class TextBlock extends Schema.Class<TextBlock>("effect-claude-code/TextBlock")({
  _tag: Schema.tagDefaultOmit("TextBlock"),
  type: Schema.tag("text"),
  text: Schema.String,
  citations: Schema.optionalKey(Schema.NullOr(Schema.Array(JsonObject))),
  cache_control: cacheControl
}) {}

/**
 * The model's extended thinking, with the signature that lets it be sent back.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ThinkingBlock extends Schema.Class<ThinkingBlock>("effect-claude-code/ThinkingBlock")({
  _tag: Schema.tagDefaultOmit("ThinkingBlock"),
  type: Schema.tag("thinking"),
  thinking: Schema.String,
  signature: Schema.String
}) {}

/**
 * Thinking the API encrypted for safety reasons; `data` is opaque and sent back as is.
 *
 * @since 0.1.0
 * @category schemas
 */
export class RedactedThinkingBlock extends Schema.Class<RedactedThinkingBlock>("effect-claude-code/RedactedThinkingBlock")({
  _tag: Schema.tagDefaultOmit("RedactedThinkingBlock"),
  type: Schema.tag("redacted_thinking"),
  data: Schema.String
}) {}

/**
 * A client tool call. `input` stays a JSON object here; the filter module
 * types it per tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolUseBlock extends Schema.Class<ToolUseBlock>("effect-claude-code/ToolUseBlock")({
  _tag: Schema.tagDefaultOmit("ToolUseBlock"),
  type: Schema.tag("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  caller: Schema.optionalKey(JsonObject),
  toolset_name: optionalNullableString,
  cache_control: cacheControl
}) {}

/**
 * An image (base64, URL or file `source`), in a prompt or a tool result; `transformations`: what the
 * server does to it before the model sees it.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ImageBlock extends Schema.Class<ImageBlock>("effect-claude-code/ImageBlock")({
  _tag: Schema.tagDefaultOmit("ImageBlock"),
  type: Schema.tag("image"),
  source: JsonObject,
  cache_control: cacheControl,
  transformations: Schema.optionalKey(Schema.NullOr(JsonObject))
}) {}

/**
 * A document (PDF, plain text, content blocks) in a prompt or a tool result.
 *
 * @since 0.1.0
 * @category schemas
 */
export class DocumentBlock extends Schema.Class<DocumentBlock>("effect-claude-code/DocumentBlock")({
  _tag: Schema.tagDefaultOmit("DocumentBlock"),
  type: Schema.tag("document"),
  source: JsonObject,
  title: optionalNullableString,
  context: optionalNullableString,
  citations: optionalUnknown,
  cache_control: cacheControl
}) {}

/**
 * A search result a tool returned, whose text blocks the model can cite.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SearchResultBlock extends Schema.Class<SearchResultBlock>("effect-claude-code/SearchResultBlock")({
  _tag: Schema.tagDefaultOmit("SearchResultBlock"),
  type: Schema.tag("search_result"),
  source: Schema.String,
  title: Schema.String,
  content: Schema.Array(TextBlock),
  citations: optionalUnknown,
  cache_control: cacheControl
}) {}

/**
 * A reference to a deferred tool, returned by the tool search tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolReferenceBlock extends Schema.Class<ToolReferenceBlock>("effect-claude-code/ToolReferenceBlock")({
  _tag: Schema.tagDefaultOmit("ToolReferenceBlock"),
  type: Schema.tag("tool_reference"),
  tool_name: Schema.String,
  cache_control: cacheControl
}) {}

/**
 * A block whose `type` this version does not know; `raw` is the object as
 * written and is what encoding gives back.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownBlock extends Schema.Class<UnknownBlock>("effect-claude-code/UnknownBlock")({
  _tag: Schema.tag("UnknownBlock"),
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

const unknownBlock = (known: ReadonlyArray<string>) =>
  unknownFallback(
    UnknownBlock,
    known,
    (raw) => new UnknownBlock({ raw }),
    (block) => block.raw
  )

/**
 * What a `tool_result` array may hold.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContentBlock = Schema.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  SearchResultBlock,
  ToolReferenceBlock,
  unknownBlock(["text", "image", "document", "search_result", "tool_reference"])
])

/**
 * A block of a `tool_result` array.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultContentBlock = typeof ToolResultContentBlock.Type

/**
 * The result of a client tool call, sent back in a user message. `content`
 * is a string or an array of blocks; `is_error` absent means false;
 * `toolset_name`: the toolset of the call, for a toolset's tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolResultBlock extends Schema.Class<ToolResultBlock>("effect-claude-code/ToolResultBlock")({
  _tag: Schema.tagDefaultOmit("ToolResultBlock"),
  type: Schema.tag("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(ToolResultContentBlock)])),
  is_error: optionalBoolean,
  toolset_name: optionalNullableString,
  cache_control: cacheControl
}) {
  /**
   * `true` only when the CLI flagged the result as an error.
   *
   * @since 0.1.0
   */
  get isError(): boolean {
    return this.is_error === true
  }

  /**
   * The textual content: the string itself, or the text blocks joined by
   * newlines.
   *
   * @since 0.1.0
   */
  get text(): string {
    const content = this.content
    if (content === undefined) return ""
    if (typeof content === "string") return content
    return content.flatMap((block) => block._tag === "TextBlock" ? [block.text] : []).join("\n")
  }
}

/**
 * A server-side tool call (web search, web fetch, code execution...).
 *
 * @since 0.1.0
 * @category schemas
 */
export class ServerToolUseBlock extends Schema.Class<ServerToolUseBlock>("effect-claude-code/ServerToolUseBlock")({
  _tag: Schema.tagDefaultOmit("ServerToolUseBlock"),
  type: Schema.tag("server_tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  caller: Schema.optionalKey(JsonObject),
  cache_control: cacheControl
}) {}

const serverToolResultFields = {
  tool_use_id: Schema.String,
  content: Schema.Unknown,
  caller: Schema.optionalKey(JsonObject),
  cache_control: cacheControl
}

/**
 * The results of the server-side web search tool (or its error).
 *
 * @since 0.1.0
 * @category schemas
 */
export class WebSearchToolResultBlock
  extends Schema.Class<WebSearchToolResultBlock>("effect-claude-code/WebSearchToolResultBlock")({
    _tag: Schema.tagDefaultOmit("WebSearchToolResultBlock"),
    type: Schema.tag("web_search_tool_result"),
    ...serverToolResultFields
  })
{}

/**
 * The page fetched by the server-side web fetch tool (or its error).
 *
 * @since 0.1.0
 * @category schemas
 */
export class WebFetchToolResultBlock
  extends Schema.Class<WebFetchToolResultBlock>("effect-claude-code/WebFetchToolResultBlock")({
    _tag: Schema.tagDefaultOmit("WebFetchToolResultBlock"),
    type: Schema.tag("web_fetch_tool_result"),
    ...serverToolResultFields
  })
{}

/**
 * The code execution result blocks (plain, bash and text editor variants).
 *
 * @since 0.1.0
 * @category schemas
 */
export class CodeExecutionToolResultBlock
  extends Schema.Class<CodeExecutionToolResultBlock>("effect-claude-code/CodeExecutionToolResultBlock")({
    _tag: Schema.tagDefaultOmit("CodeExecutionToolResultBlock"),
    type: Schema.Literals([
      "code_execution_tool_result",
      "bash_code_execution_tool_result",
      "text_editor_code_execution_tool_result"
    ]),
    ...serverToolResultFields
  })
{}

/**
 * A call to a tool of a remote MCP server the API connected to (MCP connector).
 *
 * @since 0.1.0
 * @category schemas
 */
export class McpToolUseBlock extends Schema.Class<McpToolUseBlock>("effect-claude-code/McpToolUseBlock")({
  _tag: Schema.tagDefaultOmit("McpToolUseBlock"),
  type: Schema.tag("mcp_tool_use"),
  id: Schema.String,
  name: Schema.String,
  server_name: Schema.String,
  input: JsonObject
}) {}

/**
 * The result of an {@link McpToolUseBlock} call.
 *
 * @since 0.1.0
 * @category schemas
 */
export class McpToolResultBlock extends Schema.Class<McpToolResultBlock>("effect-claude-code/McpToolResultBlock")({
  _tag: Schema.tagDefaultOmit("McpToolResultBlock"),
  type: Schema.tag("mcp_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union([Schema.String, Schema.Array(TextBlock)]),
  is_error: optionalBoolean
}) {}

/**
 * A file uploaded to the code execution container.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContainerUploadBlock extends Schema.Class<ContainerUploadBlock>("effect-claude-code/ContainerUploadBlock")({
  _tag: Schema.tagDefaultOmit("ContainerUploadBlock"),
  type: Schema.tag("container_upload"),
  file_id: Schema.String,
  cache_control: cacheControl
}) {}

/**
 * Any content block, known or not.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union([
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  ImageBlock,
  DocumentBlock,
  SearchResultBlock,
  ToolReferenceBlock,
  ServerToolUseBlock,
  WebSearchToolResultBlock,
  WebFetchToolResultBlock,
  CodeExecutionToolResultBlock,
  McpToolUseBlock,
  McpToolResultBlock,
  ContainerUploadBlock,
  unknownBlock([
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "document",
    "search_result",
    "tool_reference",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload"
  ])
])

/**
 * Any content block, known or not.
 *
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * Message content: a plain string or an array of blocks.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Content = Schema.Union([Schema.String, Schema.Array(ContentBlock)])

/**
 * Message content: a plain string or an array of blocks.
 *
 * @since 0.1.0
 * @category models
 */
export type Content = typeof Content.Type

/**
 * The blocks of a content value (a string becomes one text block).
 *
 * @since 0.1.0
 * @category accessors
 */
export const blocks = (content: Content): ReadonlyArray<ContentBlock> =>
  typeof content === "string" ? [new TextBlock({ text: content })] : content

/**
 * The text blocks of a content value, joined by newlines.
 *
 * @since 0.1.0
 * @category accessors
 */
export const text = (content: Content): string =>
  typeof content === "string"
    ? content
    : content.flatMap((block) => block._tag === "TextBlock" ? [block.text] : []).join("\n")

/**
 * Narrows content to the blocks with the given `_tag`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const filterTag = <const Tag extends ContentBlock["_tag"]>(
  content: Content,
  tag: Tag
): ReadonlyArray<Extract<ContentBlock, { readonly _tag: Tag }>> =>
  blocks(content).filter((block): block is Extract<ContentBlock, { readonly _tag: Tag }> => block._tag === tag)
