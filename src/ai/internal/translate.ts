/**
 * Claude Code's output as `effect/ai` response parts: the live events of one run (see `Partial.assemble`) in,
 * encoded stream parts out. Everything Claude Code runs is provider-executed: its tool calls come with their
 * results; the finish part carries usage, and the cost and session in its metadata.
 *
 * @internal
 */
import * as AiError from "effect/ai/AiError"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Types from "effect/Types"
import type * as ContentBlock from "../../schema/ContentBlock.ts"
import type * as Result from "../../schema/Result.ts"
import type * as Partial from "../../stream/Partial.ts"

/** The key of this provider's metadata in response parts. */
export const metadataKey = "claude-code"

/** The tool the CLI gives the model for `--json-schema`; its calls are how the structured output comes. */
export const structuredOutputTool = "StructuredOutput"

export interface Options {
  /** Structured output: the object is the only text, and the `StructuredOutput` calls stay hidden. */
  readonly json: boolean
  /** The request's tool of a name the CLI used (`mcp__<server>__<tool>`, a built-in's name). */
  readonly toolOf: (cliName: string) => Tool.Any | undefined
  readonly module: string
  readonly method: string
}

/**
 * A call the response cannot carry as a typed tool call (a tool not in the request's toolkit, or an input
 * its parameters do not fit), with what came back.
 */
export type UntypedCall = {
  readonly id: string
  readonly name: string
  readonly input: Schema.MutableJson
  readonly result: string | null
  readonly isError: boolean | null
}

/**
 * What a run tells beyond the response parts: the finish part's metadata under {@link metadataKey}. Its arrays
 * are mutable as `AiError`'s metadata is (mutable JSON), where a run that ended badly puts it.
 */
export type RunMetadata = {
  readonly sessionId: string
  readonly costUsd: number
  readonly numTurns: number
  readonly durationMs: number
  readonly permissionDenials: Array<{
    readonly tool_name: string
    readonly tool_use_id: string
    readonly tool_input: Schema.MutableJsonObject
  }>
  readonly toolCalls: Array<UntypedCall>
}

export interface Translator {
  /** Appends the parts of one event; an error result gives its error instead. */
  readonly push: (event: Partial.Event, out: Array<Response.StreamPartEncoded>) => AiError.AiError | undefined
}

const resultValue = (block: ContentBlock.ToolResultBlock): unknown => {
  const text = block.text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const decodes = (schema: Schema.Top, value: unknown): boolean =>
  Exit.isSuccess(Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)(value))

const finishReason = (stopReason: string | null | undefined): Response.FinishReason => {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
    // The run ends after its last tool call only for the structured output: the agent is done.
    case "tool_use":
      return "stop"
    case "max_tokens":
      return "length"
    case "refusal":
      return "content-filter"
    case "pause_turn":
      return "pause"
    case null:
    case undefined:
      return "unknown"
    default:
      return "other"
  }
}

const usageOf = (result: Result.ResultMessage): typeof Response.Usage.Encoded => {
  const u = result.usage
  const cacheRead = u.cache_read_input_tokens ?? undefined
  const cacheWrite = u.cache_creation_input_tokens ?? undefined
  return {
    inputTokens: {
      uncached: u.input_tokens,
      cacheRead,
      cacheWrite,
      total: u.input_tokens + (cacheRead ?? 0) + (cacheWrite ?? 0)
    },
    outputTokens: { total: u.output_tokens, text: undefined, reasoning: undefined }
  }
}

export const make = (options: Options): Translator => {
  const declared = new Map<string, Tool.Any>()
  const undeclared = new Map<string, Types.Mutable<UntypedCall>>()
  const hidden = new Set<string>()
  const open = new Set<string>()

  const error = (reason: AiError.AiErrorReason) =>
    AiError.make({ module: options.module, method: options.method, reason })

  const block = (
    kind: "text" | "reasoning",
    id: string,
    delta: string,
    out: Array<Response.StreamPartEncoded>
  ) => {
    if (!open.has(id)) {
      open.add(id)
      out.push({ type: `${kind}-start`, id })
    }
    out.push({ type: `${kind}-delta`, id, delta })
  }
  const close = (kind: "text" | "reasoning", id: string, out: Array<Response.StreamPartEncoded>) => {
    if (!open.delete(id)) return
    out.push({ type: `${kind}-end`, id })
  }
  const whole = (kind: "text" | "reasoning", id: string, text: string, out: Array<Response.StreamPartEncoded>) => {
    block(kind, id, text, out)
    close(kind, id, out)
  }

  const toolCall = (use: ContentBlock.ToolUseBlock, out: Array<Response.StreamPartEncoded>) => {
    if (options.json && use.name === structuredOutputTool) {
      hidden.add(use.id)
      return
    }
    const tool = options.toolOf(use.name)
    // A call whose input its tool's parameters reject (the CLI answers it with an error) would fail the decoding
    // of the whole response: it is kept with the undeclared ones.
    if (tool === undefined || !decodes(tool.parametersSchema, use.input)) {
      undeclared.set(use.id, {
        id: use.id,
        name: use.name,
        input: use.input as Schema.MutableJson,
        result: null,
        isError: null
      })
      return
    }
    declared.set(use.id, tool)
    out.push({ type: "tool-call", id: use.id, name: tool.name, params: use.input, providerExecuted: true })
  }

  const toolResult = (result: ContentBlock.ToolResultBlock, out: Array<Response.StreamPartEncoded>) => {
    const other = undeclared.get(result.tool_use_id)
    if (other !== undefined) {
      other.result = result.text
      other.isError = result.isError
      return
    }
    const tool = declared.get(result.tool_use_id)
    if (tool === undefined) return
    const value = resultValue(result)
    // A failure the tool's schema does not describe (a denial, a bad input) is told as the CLI wrote it.
    const failure = result.isError && !decodes(Tool.failureResultSchema(tool), value)
      ? { type: "execution-denied", reason: result.text }
      : value
    out.push({
      type: "tool-result",
      id: result.tool_use_id,
      name: tool.name,
      result: result.isError ? failure : value,
      isFailure: result.isError,
      providerExecuted: true
    })
  }

  const finish = (result: Result.ResultMessage, out: Array<Response.StreamPartEncoded>): AiError.AiError | undefined => {
    const metadata = {
      [metadataKey]: {
        sessionId: result.session_id,
        costUsd: result.total_cost_usd,
        numTurns: result.num_turns,
        durationMs: result.duration_ms,
        // The CLI's own JSON, read with `JSON.parse`.
        permissionDenials: (result.permission_denials ?? []) as RunMetadata["permissionDenials"],
        toolCalls: [...undeclared.values()]
      } satisfies RunMetadata
    }
    if (result._tag === "ResultError") {
      const description = result.errors?.join("\n") || result.subtype
      switch (result.subtype) {
        case "error_max_structured_output_retries":
          return error(new AiError.StructuredOutputError({ description, responseText: "", metadata }))
        case "error_max_turns":
        case "error_max_budget_usd":
          out.push({ type: "finish", reason: "length", usage: usageOf(result), metadata })
          return undefined
        default:
          return error(new AiError.InternalProviderError({ description, metadata }))
      }
    }
    if (result.is_error) {
      const status = result.api_error_status
      return error(
        typeof status === "number"
          ? AiError.reasonFromHttpStatus({ status, description: result.result, metadata })
          : new AiError.UnknownError({ description: result.result, metadata })
      )
    }
    if (options.json) {
      const text = result.structured_output === undefined ? result.result : JSON.stringify(result.structured_output)
      whole("text", `${result.session_id}:structured-output`, text, out)
    }
    out.push({ type: "finish", reason: finishReason(result.stop_reason), usage: usageOf(result), metadata })
    return undefined
  }

  const message = (event: Extract<Partial.Event, { _tag: "Message" }>, out: Array<Response.StreamPartEncoded>) => {
    const m = event.message
    switch (m._tag) {
      case "SystemInit": {
        out.push({ type: "response-metadata", id: m.session_id, modelId: m.model })
        return undefined
      }
      case "AssistantMessage": {
        if (m.parent_tool_use_id !== null) return undefined
        m.message.content.forEach((content, index) => {
          const id = `${m.message.id}:${index}`
          if (content._tag === "ToolUseBlock") toolCall(content, out)
          else if (event.streamed || options.json) return
          else if (content._tag === "TextBlock") whole("text", id, content.text, out)
          else if (content._tag === "ThinkingBlock") whole("reasoning", id, content.thinking, out)
        })
        return undefined
      }
      case "UserMessage": {
        if (m.parent_tool_use_id !== null) return undefined
        for (const result of m.toolResults) {
          if (!hidden.has(result.tool_use_id)) toolResult(result, out)
        }
        return undefined
      }
      case "ResultSuccess":
      case "ResultError":
        return finish(m, out)
      default:
        return undefined
    }
  }

  return {
    push: (event, out) => {
      switch (event._tag) {
        case "TextDelta":
          if (event.parentToolUseId === null && !options.json) {
            block("text", `${event.messageId}:${event.index}`, event.text, out)
          }
          return undefined
        case "ThinkingDelta":
          if (event.parentToolUseId === null && !options.json) {
            block("reasoning", `${event.messageId}:${event.index}`, event.thinking, out)
          }
          return undefined
        case "BlockStop": {
          const id = `${event.messageId}:${event.index}`
          if (event.kind === "text") close("text", id, out)
          else if (event.kind === "thinking") close("reasoning", id, out)
          return undefined
        }
        case "Message":
          return message(event, out)
        default:
          return undefined
      }
    }
  }
}

/**
 * Stream parts folded into the parts of a whole response: the deltas of each text and reasoning block joined.
 */
export const toParts = (parts: ReadonlyArray<Response.StreamPartEncoded>): Array<Response.PartEncoded> => {
  const out: Array<Response.PartEncoded> = []
  const texts = new Map<string, { type: "text" | "reasoning"; text: string }>()
  for (const part of parts) {
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const entry = { type: part.type === "text-start" ? "text" as const : "reasoning" as const, text: "" }
        texts.set(part.id, entry)
        out.push(entry as Response.PartEncoded)
        break
      }
      case "text-delta":
      case "reasoning-delta": {
        const entry = texts.get(part.id)
        if (entry !== undefined) entry.text += part.delta
        break
      }
      case "text-end":
      case "reasoning-end":
        break
      case "tool-call":
      case "tool-result":
      case "response-metadata":
      case "finish":
        out.push(part)
        break
      default:
        break
    }
  }
  return out
}
