/**
 * Transcript entries as stream-json messages: a user or assistant entry becomes the
 * {@link Message.UserMessage} / {@link Message.AssistantMessage} the CLI printed for it, with the same API
 * payload, so that everything written for stream-json (`Item.select` and the filter atoms, views, the bin's
 * `view` and `stats`) works on a person's saved history. Other entries (metadata, attachments, system notes)
 * have no stream-json counterpart and give no message.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Message from "../schema/Message.ts"
import type * as Transcript from "./Transcript.ts"
import type * as Decode from "../stream/Decode.ts"
import { DecodeError } from "../stream/DecodeError.ts"
import type * as TranscriptDecode from "./Decode.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The `Task` tool use that started the subagent whose transcript this is (its `.meta.json` `toolUseId`). */
  readonly toolUseId?: string | undefined
}

// A sidechain entry (a subagent's) gets a `parent_tool_use_id`, so that `subagent` and `main` select as in a
// live stream: the `Task` call's id when known, else `agent-<agentId>`.
const parentOf = (entry: Transcript.MessageEntry, options: Options): string | null =>
  entry.isSidechain !== true
    ? null
    : options.toolUseId ?? (entry.agentId === undefined ? "sidechain" : `agent-${entry.agentId}`)

/**
 * The stream-json message of an entry; `undefined` for entries that have none.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toMessage = (entry: Transcript.Entry, options: Options = {}): Message.Message | undefined => {
  if (entry._tag !== "UserEntry" && entry._tag !== "AssistantEntry") return undefined
  const common = {
    session_id: entry.sessionId ?? "",
    uuid: entry.uuid,
    parent_tool_use_id: parentOf(entry, options),
    ...(entry.timestamp !== undefined && { timestamp: entry.timestamp }),
    ...(entry.agentId !== undefined && { agent_id: entry.agentId })
  }
  return entry._tag === "UserEntry"
    ? new Message.UserMessage({
      type: "user",
      message: entry.message,
      ...common,
      ...(entry.toolUseResult !== undefined && { tool_use_result: entry.toolUseResult })
    })
    : new Message.AssistantMessage({
      type: "assistant",
      message: entry.message,
      ...common,
      ...(entry.requestId !== undefined && { request_id: entry.requestId })
    })
}

/**
 * Entries to the messages they stand for (`Item.select` and the filters take them); other entries are dropped.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Filter, Item } from "effect-claude-code/filter"
 * import { TranscriptDecode, TranscriptMessages } from "effect-claude-code/transcript"
 * declare const file: Stream.Stream<Uint8Array>
 * const bashCalls = file.pipe(TranscriptDecode.entries(), TranscriptMessages.messages(), Item.select(Filter.toolUse("Bash")))
 * ```
 *
 * @since 0.1.0
 * @category conversions
 */
export const messages = (options: Options = {}) =>
<E, R>(self: Stream.Stream<Transcript.Entry, E, R>): Stream.Stream<Message.Message, E, R> =>
  Stream.filterMap(self, (entry) => {
    const message = toMessage(entry, options)
    return message === undefined ? Result.failVoid : Result.succeed(message)
  })

/**
 * Decoded transcript lines (bad lines in-band) to decoded stream-json lines, for the readers of
 * stream-json records (the bin's `view`): a line keeps its number and text, bad lines pass as they are.
 *
 * @since 0.1.0
 * @category conversions
 */
export const records = (options: Options = {}) =>
<E, R>(
  self: Stream.Stream<TranscriptDecode.DecodedEntry | DecodeError, E, R>
): Stream.Stream<Decode.DecodedLine | DecodeError, E, R> =>
  Stream.filterMap(self, (record): Result.Result<Decode.DecodedLine | DecodeError, void> => {
    if (record instanceof DecodeError) return Result.succeed(record)
    const message = toMessage(record.entry, options)
    return message === undefined ? Result.failVoid : Result.succeed({ line: record.line, raw: record.raw, message })
  })
