/**
 * Items: the unit filters select. {@link items} flattens a stream of
 * messages so that each content block of an assistant or user message is one
 * item and every other message is one item, each with its envelope (session,
 * uuid, subagent, position); a `tool_result` item also names its tool.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import * as Schema from "effect/Schema"
import * as ContentBlock from "../schema/ContentBlock.ts"
import * as Message from "../schema/Message.ts"
import * as Permission from "../schema/Permission.ts"
import type * as ResultMessage from "../schema/Result.ts"
import type * as StreamEvent from "../schema/StreamEvent.ts"
import type * as System from "../schema/System.ts"
import type * as ToolInput from "../schema/ToolInput.ts"
import type { DecodeError } from "../stream/DecodeError.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
import type * as Ast from "./Ast.ts"
import * as Decisions from "./internal/decisions.ts"
import { kindsOf } from "./internal/kinds.ts"

/**
 * Where an item comes from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Envelope {
  /** The wire `type` of the message (`"decode_failure"` for a line that failed to decode). */
  readonly messageType: string
  readonly sessionId: string | undefined
  readonly uuid: string | undefined
  /** The tool use (a `Task`/`Agent` call) whose subagent produced the message; `null` for the main agent. */
  readonly parentToolUseId: string | null
  /** 0-based index of the message (or failed line) in the stream. */
  readonly messageIndex: number
  /** 0-based index of the block in its message; `undefined` for items that are whole messages. */
  readonly blockIndex: number | undefined
}

/**
 * Which side of the conversation a block is on.
 *
 * @since 0.1.0
 * @category models
 */
export type Role = "assistant" | "user"

type UserLike = Message.UserMessage | Message.UserMessageReplay

interface BlockEnvelope<B> extends Envelope {
  readonly role: Role
  readonly message: Message.AssistantMessage | UserLike
  readonly block: B
  readonly blockIndex: number
}

/**
 * A text block (assistant text, or user text: a prompt, a plain-string user content).
 *
 * @since 0.1.0
 * @category models
 */
export interface TextItem extends BlockEnvelope<ContentBlock.TextBlock> {
  readonly kind: "text"
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ThinkingItem extends BlockEnvelope<ContentBlock.ThinkingBlock> {
  readonly kind: "thinking"
  readonly thinking: string
}

/**
 * A tool call. `Name` narrows `input` to the tool's input type (see
 * `ToolInput`); the flattening does not check the input, the filters that
 * claim that type do (see `Filter.toolUse`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolUseItem<Name extends string = string, Input = ToolInput.InputOf<Name>>
  extends BlockEnvelope<ContentBlock.ToolUseBlock>
{
  readonly kind: "tool_use"
  readonly id: string
  readonly name: Name
  readonly input: Input
}

/**
 * A tool's result, with the name of the tool it answers (when its
 * `tool_use` was seen earlier in the stream) and the message's
 * `tool_use_result` metadata.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResultItem extends BlockEnvelope<ContentBlock.ToolResultBlock> {
  readonly kind: "tool_result"
  readonly toolUseId: string
  readonly toolName: string | undefined
  readonly isError: boolean
  /**
   * The permission system refused the call, as `Permission.isPermissionDenied`
   * says (the message's `tool_result_meta` decision when the CLI writes one,
   * else the refusal wording of an error result), or a `permission_denied`
   * system message named its tool use id earlier in the stream.
   */
  readonly denied: boolean
  readonly toolUseResult: unknown
}

/**
 * Any other content block (images, redacted thinking, server tool blocks, unknown blocks).
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockItem extends BlockEnvelope<ContentBlock.ContentBlock> {
  readonly kind: "block"
}

interface MessageEnvelope<M> extends Envelope {
  readonly message: M
  readonly blockIndex: undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SystemItem extends MessageEnvelope<System.SystemMessage | Message.UnknownMessage> {
  readonly kind: "system"
  readonly subtype: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResultItem extends MessageEnvelope<ResultMessage.ResultMessage> {
  readonly kind: "result"
}

/**
 * A `stream_event` line (partial message): `deltaType` is the delta's type
 * for `content_block_delta` events.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamEventItem extends MessageEnvelope<Message.StreamEventMessage> {
  readonly kind: "stream_event"
  readonly eventType: string
  readonly deltaType: string | undefined
}

/**
 * Any other message: rate limit events, tool progress, `active_goal`,
 * control messages, unknown message types.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageItem extends MessageEnvelope<Message.Message> {
  readonly kind: "message"
}

/**
 * A line that failed to decode, in a stream with `onBadLine: "emit"`.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodeFailureItem extends Envelope {
  readonly kind: "decode_failure"
  readonly error: DecodeError
  readonly blockIndex: undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Item =
  | TextItem
  | ThinkingItem
  | ToolUseItem
  | ToolResultItem
  | BlockItem
  | SystemItem
  | ResultItem
  | StreamEventItem
  | MessageItem
  | DecodeFailureItem

/**
 * @since 0.1.0
 * @category models
 */
export type Kind = Item["kind"]

/**
 * What the flattening consumes: messages, and the in-band decode failures of
 * a stream with `onBadLine: "emit"`.
 *
 * @since 0.1.0
 * @category models
 */
export type Input = Message.Message | DecodeError

/**
 * The stateful core of the flattening: feed it the stream's elements in
 * order. It remembers the message count and the tool names of the tool use
 * ids it has seen.
 *
 * @since 0.1.0
 * @category models
 */
export interface Flattener {
  /** The items of one element. */
  readonly push: (input: Input) => ReadonlyArray<Item>
  /** The items of consecutive elements, in one array. */
  readonly pushAll: (inputs: Iterable<Input>) => Array<Item>
}

const stringOr = <A>(value: unknown, fallback: A): string | A => typeof value === "string" ? value : fallback

const envelopeOf = (message: Message.Message, messageIndex: number): Envelope => {
  // Unknown messages keep their envelope in the raw object only.
  const fields: { readonly [k: string]: unknown } = message._tag === "UnknownMessage"
    ? message.raw
    : message as unknown as { readonly [k: string]: unknown }
  return {
    messageType: message.type,
    sessionId: stringOr(fields.session_id, undefined),
    uuid: stringOr(fields.uuid, undefined),
    parentToolUseId: stringOr(fields.parent_tool_use_id, null),
    messageIndex,
    blockIndex: undefined
  }
}

// Unknown subtypes of `system` are system items too.
const isSystem = (m: Message.Message): m is System.SystemMessage | Message.UnknownMessage => m.type === "system"

const blockKindOf = (block: ContentBlock.ContentBlock): Kind => {
  switch (block._tag) {
    case "TextBlock":
      return "text"
    case "ThinkingBlock":
      return "thinking"
    case "ToolUseBlock":
      return "tool_use"
    case "ToolResultBlock":
      return "tool_result"
    default:
      return "block"
  }
}

const blockKinds: ReadonlyArray<Kind> = ["text", "thinking", "tool_use", "tool_result", "block"]

// Block items come only from complete messages; `stream_event` lines (partial messages) are items of their
// own kind, so a block streamed as deltas and then sent whole is counted once. A message of a type without
// a kind of its own (`rate_limit_event`, control messages, types newer than this library) is a `message`
// item, whole, selected by its wire type: a kind per type would make every new CLI message a breaking
// change to `Kind`.

/**
 * A new {@link Flattener}. With `kinds`, it builds only the items of those
 * kinds (what {@link select} does for a filter); its state (the message
 * count, tool names, permission denials) follows every element all the same,
 * so the items it builds are those the full flattening would.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFlattener = (kinds?: ReadonlySet<Kind>): Flattener => {
  let index = 0
  const toolNames = new Map<string, string>()
  const deniedIds = new Set<string>()
  const wants = (kind: Kind) => kinds === undefined || kinds.has(kind)
  const wantsBlocks = blockKinds.some(wants)

  const blockItem = (
    env: Envelope,
    role: Role,
    message: Message.AssistantMessage | UserLike,
    block: ContentBlock.ContentBlock,
    blockIndex: number
  ): Item => {
    switch (block._tag) {
      case "TextBlock":
        return { ...env, role, message, block, blockIndex, kind: "text", text: block.text }
      case "ThinkingBlock":
        return { ...env, role, message, block, blockIndex, kind: "thinking", thinking: block.thinking }
      case "ToolUseBlock":
        return { ...env, role, message, block, blockIndex, kind: "tool_use", id: block.id, name: block.name, input: block.input }
      case "ToolResultBlock":
        return {
          ...env,
          role,
          message,
          block,
          blockIndex,
          kind: "tool_result",
          toolUseId: block.tool_use_id,
          toolName: toolNames.get(block.tool_use_id),
          isError: block.is_error === true,
          denied: (block.is_error === true && deniedIds.has(block.tool_use_id)) ||
            Permission.isPermissionDenied(
              block,
              message.type === "user" ? Permission.toolResultMeta(message, block.tool_use_id) : undefined
            ),
          toolUseResult: role === "user" ? (message as UserLike).tool_use_result : undefined
        }
      default:
        return { ...env, role, message, block, blockIndex, kind: "block" }
    }
  }

  const blockItems = (input: Message.AssistantMessage | UserLike, messageIndex: number, out: Array<Item>): void => {
    const blocks = ContentBlock.blocks(input.message.content)
    let env: Envelope | undefined
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i]
      // Recorded even when the tool_use item is left out: a later tool_result item names its tool.
      if (block._tag === "ToolUseBlock") toolNames.set(block.id, block.name)
      if (wants(blockKindOf(block))) {
        out.push(blockItem(env ??= envelopeOf(input, messageIndex), input.type, input, block, i))
      }
    }
  }

  const pushInto = (input: Input, out: Array<Item>): void => {
    const messageIndex = index++
    if (isDecodeError(input)) {
      if (!wants("decode_failure")) return
      out.push({
        kind: "decode_failure",
        error: input,
        messageType: "decode_failure",
        sessionId: undefined,
        uuid: undefined,
        parentToolUseId: null,
        messageIndex,
        blockIndex: undefined
      })
      return
    }
    switch (input._tag) {
      case "AssistantMessage":
      case "UserMessage":
      case "UserMessageReplay": {
        if (wantsBlocks) blockItems(input, messageIndex, out)
        return
      }
      case "StreamEventMessage": {
        if (!wants("stream_event")) return
        const event = input.event
        const deltaType = event._tag === "ContentBlockDeltaEvent" ? (event as StreamEvent.ContentBlockDeltaEvent).delta.type : undefined
        out.push({ ...envelopeOf(input, messageIndex), kind: "stream_event", message: input, blockIndex: undefined, eventType: event.type, deltaType })
        return
      }
    }
    if (Message.isResultMessage(input)) {
      if (wants("result")) out.push({ ...envelopeOf(input, messageIndex), kind: "result", message: input, blockIndex: undefined })
      return
    }
    if (input._tag === "SystemPermissionDenied") deniedIds.add(input.tool_use_id)
    if (isSystem(input)) {
      if (wants("system")) {
        out.push({ ...envelopeOf(input, messageIndex), kind: "system", message: input, blockIndex: undefined, subtype: input.subtype ?? "" })
      }
      // Everything else, known or not (rate limits, tool progress, `active_goal`, newer types), is one
      // `message` item: whole, selected by `type:TYPE`.
    } else if (wants("message")) {
      out.push({ ...envelopeOf(input, messageIndex), kind: "message", message: input, blockIndex: undefined })
    }
  }

  return {
    push: (input) => {
      const out: Array<Item> = []
      pushInto(input, out)
      return out
    },
    pushAll: (inputs) => {
      const out: Array<Item> = []
      for (const input of inputs) pushInto(input, out)
      return out
    }
  }
}

/**
 * Flattens a stream of messages (and in-band decode failures) into items.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode } from "effect-claude-code/stream"
 * import { Filter, Item } from "effect-claude-code/filter"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const errors = stdout.pipe(Decode.messages({ onBadLine: "emit" }), Item.items, Stream.filter(Filter.error))
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const items = <E, R>(self: Stream.Stream<Input, E, R>): Stream.Stream<Item, E, R> =>
  // One output array per chunk, not one per message.
  Stream.mapAccumArray(self, makeFlattener, (flattener, inputs) => [flattener, flattener.pushAll(inputs)])

/**
 * What {@link select} reads of a filter: a `Filter.Filter<A>` is one. Only
 * a `Filter` holds a call for its result (`tool:Bash & error`); any other
 * selector is a plain predicate, item by item.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selector<A extends Item> {
  (item: Item): item is A
  readonly ast: Ast.Ast
}

/**
 * The items of a stream of messages that a filter selects: {@link items},
 * then `Stream.filter(filter)`, in one stage. The same items, in the same
 * order, but only the items of the kinds the filter can select are built
 * (`text | tool:Read` builds none for a `stream_event` line).
 *
 * A tool call is an error when its result is (`tool:Bash & error`: the Bash
 * calls that failed), and denied when its result was refused: so when the
 * filter's verdict on a call depends on `error` or `denied`, the call is held
 * until its result arrives (by tool use id) and emitted then, just before
 * that result; a call the stream ends without answering is neither, and is
 * emitted (if selected) at the end, in the order the calls came. Only such
 * calls are held, each until its result; every other item, and every item of
 * a filter that tests no outcome, is emitted as it comes.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode } from "effect-claude-code/stream"
 * import { Filter, Item } from "effect-claude-code/filter"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const commands = stdout.pipe(
 *   Decode.messages(),
 *   Item.select(Filter.toolUse("Bash")),
 *   Stream.map((item) => item.input.command)
 * )
 * const failed = stdout.pipe(Decode.messages(), Item.select(Filter.and(Filter.toolUse("Bash"), Filter.error)))
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const select: {
  <A extends Item>(filter: Selector<A>): <E, R>(self: Stream.Stream<Input, E, R>) => Stream.Stream<A, E, R>
  <E, R, A extends Item>(self: Stream.Stream<Input, E, R>, filter: Selector<A>): Stream.Stream<A, E, R>
} = dual(2, <E, R, A extends Item>(self: Stream.Stream<Input, E, R>, filter: Selector<A>): Stream.Stream<A, E, R> => {
  const kinds = kindsOf(filter.ast) as ReadonlySet<Kind> | undefined
  // A stream may run more than once: each run has decisions of its own.
  if (Decisions.of(filter) !== undefined) {
    // The results decide the calls: built even when the filter selects none of them.
    const built = kinds === undefined ? undefined : new Set<Kind>([...kinds, "tool_result"])
    return Stream.mapAccumArray(
      self,
      () => ({ flattener: makeFlattener(built), decisions: Decisions.of<Item, undefined>(filter)! }),
      (state, inputs) => [state, Decisions.selectInto<Item, A>(state.decisions, state.flattener.pushAll(inputs), [])],
      { onHalt: (state) => Decisions.selectAtEnd<Item, A>(state.decisions) }
    )
  }
  return Stream.mapAccumArray(self, () => makeFlattener(kinds), (flattener, inputs) => {
    // Filtered in place: one array per chunk.
    const out = flattener.pushAll(inputs)
    let kept = 0
    for (let i = 0; i < out.length; i++) if (filter(out[i]!)) out[kept++] = out[i]!
    out.length = kept
    return [flattener, out as Array<Item> as Array<A>]
  })
})

/**
 * Flattens messages held in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromIterable = (inputs: Iterable<Input>): Array<Item> => makeFlattener().pushAll(inputs)

/**
 * Whether an item is of a kind.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKind: {
  <K extends Kind>(kind: K): (item: Item) => item is Extract<Item, { readonly kind: K }>
  <K extends Kind>(item: Item, kind: K): item is Extract<Item, { readonly kind: K }>
} = dual(2, (item: Item, kind: Kind): boolean => item.kind === kind) as never

/**
 * An item as one JSON object, for JSON Lines output: its kind, envelope and
 * `value`, the block or message as it was on the wire (see {@link toJson});
 * a decode failure as its line, reason, detail and raw text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Json {
  readonly kind: Kind
  readonly session_id: string | null
  readonly parent_tool_use_id: string | null
  readonly message_index: number
  readonly block_index: number | null
  readonly value: unknown
}

const encodeBlock = Schema.encodeSync(ContentBlock.ContentBlock)

const wireValue = (item: Item, wire: unknown): unknown => {
  // The line must be this message's: same wire type (a cheap check against a mix-up).
  if (!Predicate.isObject(wire) || !("type" in wire) || wire.type !== item.messageType) return undefined
  if (item.blockIndex === undefined) return wire
  const content = "message" in wire && Predicate.isObject(wire.message) && "content" in wire.message
    ? wire.message.content
    : undefined
  if (typeof content === "string") return item.blockIndex === 0 ? { type: "text", text: content } : undefined
  return Array.isArray(content) ? content[item.blockIndex] : undefined
}

/**
 * Encodes an item for JSON Lines output (see {@link Json}).
 *
 * Give `wire`, the parsed JSON line the item's message came from
 * (`JSON.parse(record.raw)` of a `Decode.DecodedLine`, parsed once per line
 * for all its items), and `value` is exactly what was on the wire, fields the
 * schemas do not know included: the whole line for a message item,
 * `message.content[blockIndex]` for a block item (a plain-string content as
 * the text block `{ "type": "text", "text": content }`).
 *
 * Without `wire`, or when `wire` is not that message's line (another `type`,
 * no such block), `value` is the decoded message or block encoded again: it
 * decodes to the same item but keeps only the fields the schemas know.
 *
 * @example
 * ```ts
 * import { Decode } from "effect-claude-code/stream"
 * import { Item } from "effect-claude-code/filter"
 * declare const record: Decode.DecodedLine
 * declare const flattener: Item.Flattener
 * const wire = JSON.parse(record.raw)
 * const lines = flattener.push(record.message).map((item) => JSON.stringify(Item.toJson(item, wire)))
 * ```
 *
 * @since 0.1.0
 * @category encoding
 */
export const toJson = (item: Item, wire?: unknown): Json => ({
  kind: item.kind,
  session_id: item.sessionId ?? null,
  parent_tool_use_id: item.parentToolUseId,
  message_index: item.messageIndex,
  block_index: item.blockIndex ?? null,
  value: item.kind === "decode_failure"
    ? { line: item.error.line, reason: item.error.reason._tag, detail: item.error.detail, raw: item.error.raw }
    : wireValue(item, wire) ??
      (item.blockIndex === undefined ? Message.encodeMessage(item.message) : encodeBlock((item as BlockItem).block))
})
