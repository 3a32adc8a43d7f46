/**
 * The partial-message assembler (`--include-partial-messages`): turns `stream_event` lines into live events
 * a renderer can switch on (text and thinking deltas, tool calls once their input is complete) and passes
 * every other message through. An assistant message whose content was already streamed is marked
 * `streamed: true`, so its text is never shown twice.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as Stream from "effect/Stream"
import type { Message } from "../schema/Message.ts"
import type { StreamEvent } from "../schema/StreamEvent.ts"
import { type DecodeError, isDecodeError } from "./DecodeError.ts"
import { applyStepper } from "./internal/stepper.ts"

/**
 * Where a live event belongs: the API message id and the subagent (`null` for the main thread).
 *
 * @since 0.1.0
 * @category models
 */
export interface Origin {
  readonly messageId: string
  readonly parentToolUseId: string | null
}

/**
 * What the assembler emits.
 *
 * @example
 * ```ts
 * import { Partial } from "effect-claude-code/stream"
 * const render = (event: Partial.Event) => {
 *   switch (event._tag) {
 *     case "TextDelta": return process.stdout.write(event.text)
 *     case "ToolCall": return console.log(event.name, event.input)
 *     case "Message": return event.streamed ? undefined : console.log(event.message)
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Event = Data.TaggedEnum<{
  /** A model response starts. */
  MessageStart: Origin & { readonly model: string }
  /** Text of block `index`, as it arrives. */
  TextDelta: Origin & { readonly index: number; readonly text: string }
  /** Thinking of block `index`, as it arrives. */
  ThinkingDelta: Origin & { readonly index: number; readonly thinking: string }
  /** A tool call starts; its input is still being written. */
  ToolUseStart: Origin & { readonly index: number; readonly id: string; readonly name: string }
  /** A fragment of a tool call's input JSON (not parseable on its own). */
  ToolInputDelta: Origin & { readonly index: number; readonly id: string; readonly partialJson: string }
  /** A tool call, complete: `input` is the parsed JSON of all fragments. */
  ToolCall: Origin & { readonly index: number; readonly id: string; readonly name: string; readonly input: unknown }
  /** A tool call whose joined fragments are not JSON, or whose block never stopped (a cut stream). */
  ToolCallMalformed: Origin & {
    readonly index: number
    readonly id: string
    readonly name: string
    readonly json: string
    readonly error: string
  }
  /** A text or thinking block is complete. */
  BlockStop: Origin & { readonly index: number; readonly kind: "text" | "thinking" | "other" }
  /** A model response is complete. */
  MessageStop: Origin & { readonly stopReason: string | null }
  /** Any other message, as decoded; `streamed` when its content came as deltas already. */
  Message: { readonly message: Message; readonly streamed: boolean }
}>

/**
 * Constructors, `$is` and `$match` for {@link Event}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Event = Data.taggedEnum<Event>()

interface Block {
  readonly kind: "text" | "thinking" | "tool" | "other"
  readonly id: string
  readonly name: string
  readonly json: Array<string>
  readonly startInput: unknown
}

interface Thread {
  messageId: string
  stopReason: string | null
  readonly blocks: Map<number, Block>
}

const parseInput = (block: Block): { ok: true; input: unknown } | { ok: false; json: string; error: string } => {
  const json = block.json.join("")
  if (json.length === 0) return { ok: true, input: block.startInput ?? {} }
  try {
    return { ok: true, input: JSON.parse(json) }
  } catch (error) {
    return { ok: false, json, error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * A stateful assembler usable without Effect.
 *
 * @since 0.1.0
 * @category models
 */
export interface Assembler {
  /** Appends the events one message yields to `out`. */
  readonly push: (message: Message, out: Array<Event>) => void
  /** At the end of the stream: tool calls still open (a cut stream) as `ToolCallMalformed`. */
  readonly end: (out: Array<Event>) => void
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeAssembler = (): Assembler => {
  // Events are written as literals, in the shape the `Event` constructors give (the fields, then `_tag`):
  // a constructor call per event goes through the constructors' Proxy and copies its argument.
  const threads = new Map<string | null, Thread>()

  const thread = (parent: string | null): Thread => {
    let t = threads.get(parent)
    if (t === undefined) {
      t = { messageId: "", stopReason: null, blocks: new Map() }
      threads.set(parent, t)
    }
    return t
  }

  // Tool blocks that never stopped: the stream was cut or the request retried.
  const abandon = (t: Thread, parentToolUseId: string | null, out: Array<Event>) => {
    for (const [index, block] of t.blocks) {
      if (block.kind !== "tool") continue
      out.push({
        messageId: t.messageId,
        parentToolUseId,
        index,
        id: block.id,
        name: block.name,
        json: block.json.join(""),
        error: "the tool_use block never stopped",
        _tag: "ToolCallMalformed"
      })
    }
    t.blocks.clear()
  }

  const onEvent = (event: StreamEvent, parentToolUseId: string | null, out: Array<Event>): boolean => {
    const t = thread(parentToolUseId)
    const messageId = t.messageId
    switch (event._tag) {
      case "MessageStartEvent": {
        abandon(t, parentToolUseId, out)
        t.messageId = event.message.id
        t.stopReason = null
        out.push({ messageId: t.messageId, parentToolUseId, model: event.message.model, _tag: "MessageStart" })
        return true
      }
      case "ContentBlockStartEvent": {
        const cb = event.content_block
        const index = event.index
        switch (cb._tag) {
          case "TextBlock": {
            t.blocks.set(index, { kind: "text", id: "", name: "", json: [], startInput: undefined })
            if (cb.text.length > 0) out.push({ messageId, parentToolUseId, index, text: cb.text, _tag: "TextDelta" })
            return true
          }
          case "ThinkingBlock": {
            t.blocks.set(index, { kind: "thinking", id: "", name: "", json: [], startInput: undefined })
            if (cb.thinking.length > 0) {
              out.push({ messageId, parentToolUseId, index, thinking: cb.thinking, _tag: "ThinkingDelta" })
            }
            return true
          }
          case "ToolUseBlock":
          case "ServerToolUseBlock":
          case "McpToolUseBlock": {
            const hasInput = Object.keys(cb.input).length > 0
            t.blocks.set(index, { kind: "tool", id: cb.id, name: cb.name, json: [], startInput: hasInput ? cb.input : undefined })
            out.push({ messageId, parentToolUseId, index, id: cb.id, name: cb.name, _tag: "ToolUseStart" })
            return true
          }
          default: {
            t.blocks.set(index, { kind: "other", id: "", name: "", json: [], startInput: undefined })
            return true
          }
        }
      }
      case "ContentBlockDeltaEvent": {
        const delta = event.delta
        const index = event.index
        switch (delta._tag) {
          case "TextDelta": {
            if (delta.text.length > 0) out.push({ messageId, parentToolUseId, index, text: delta.text, _tag: "TextDelta" })
            return true
          }
          case "ThinkingDelta": {
            if (delta.thinking.length > 0) {
              out.push({ messageId, parentToolUseId, index, thinking: delta.thinking, _tag: "ThinkingDelta" })
            }
            return true
          }
          case "InputJsonDelta": {
            const block = t.blocks.get(index)
            if (block === undefined || block.kind !== "tool") return false
            block.json.push(delta.partial_json)
            if (delta.partial_json.length > 0) {
              out.push({ messageId, parentToolUseId, index, id: block.id, partialJson: delta.partial_json, _tag: "ToolInputDelta" })
            }
            return true
          }
          case "SignatureDelta":
          case "CitationsDelta":
            return true
          default:
            return false
        }
      }
      case "ContentBlockStopEvent": {
        const index = event.index
        const block = t.blocks.get(index)
        if (block === undefined) return false
        t.blocks.delete(index)
        if (block.kind !== "tool") {
          out.push({ messageId, parentToolUseId, index, kind: block.kind, _tag: "BlockStop" })
          return true
        }
        const parsed = parseInput(block)
        out.push(
          parsed.ok
            ? { messageId, parentToolUseId, index, id: block.id, name: block.name, input: parsed.input, _tag: "ToolCall" }
            : {
              messageId,
              parentToolUseId,
              index,
              id: block.id,
              name: block.name,
              json: parsed.json,
              error: parsed.error,
              _tag: "ToolCallMalformed"
            }
        )
        return true
      }
      case "MessageDeltaEvent": {
        t.stopReason = event.delta.stop_reason ?? t.stopReason
        return true
      }
      case "MessageStopEvent": {
        out.push({ messageId, parentToolUseId, stopReason: t.stopReason, _tag: "MessageStop" })
        return true
      }
      default:
        return false
    }
  }

  const push = (message: Message, out: Array<Event>): void => {
    if (message._tag === "StreamEventMessage") {
      // An event this assembler does not consume passes through untouched.
      if (!onEvent(message.event, message.parent_tool_use_id, out)) {
        out.push({ message, streamed: false, _tag: "Message" })
      }
      return
    }
    const streamed = message._tag === "AssistantMessage" &&
      threads.get(message.parent_tool_use_id ?? null)?.messageId === message.message.id
    out.push({ message, streamed, _tag: "Message" })
  }

  const end = (out: Array<Event>): void => {
    for (const [parentToolUseId, t] of threads) abandon(t, parentToolUseId, out)
  }

  return { push, end }
}

/**
 * Assembles a message stream into live {@link Event}s. Works whatever
 * `onBadLine` says: `DecodeError` values pass through as they are.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode, Partial } from "effect-claude-code/stream"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const live = stdout.pipe(Decode.messages(), Partial.assemble)
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const assemble = <A extends Message | DecodeError, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<Event | Exclude<A, Message>, E, R> =>
  applyStepper<A, E, R, Event | Exclude<A, Message>, never>(self, () => {
    const assembler = makeAssembler()
    return {
      step: (chunk, out: Array<Event | Exclude<A, Message>>) => {
        for (let i = 0; i < chunk.length; i++) {
          const item = chunk[i]
          if (isDecodeError(item)) out.push(item as Exclude<A, Message>)
          else assembler.push(item as Message, out as Array<Event>)
        }
        return undefined
      },
      flush: (out) => {
        assembler.end(out as Array<Event>)
        return undefined
      }
    }
  })
