/**
 * Higher-level views of an item stream, built on filters: tool calls paired
 * with their results, the assistant's text per turn, the final answer, the
 * errors.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Filter from "./Filter.ts"
import * as Calls from "./internal/calls.ts"
import * as Decisions from "./internal/decisions.ts"
import type * as Item from "./Item.ts"

/**
 * A tool use with the result that answered it (`undefined` when the stream
 * ended first) and how long the tool took: from the message timestamps when
 * both messages carry one, otherwise from when the two items arrived.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  readonly use: Item.ToolUseItem
  readonly result: Item.ToolResultItem | undefined
  readonly duration: Duration.Duration | undefined
}

const timestampOf = (item: Item.ToolUseItem | Item.ToolResultItem): number | undefined => {
  const ts = item.message.timestamp
  const ms = ts === undefined ? Number.NaN : Date.parse(ts)
  return Number.isNaN(ms) ? undefined : ms
}

interface Pending {
  readonly use: Item.ToolUseItem
  readonly at: number
}

const toolItem = Filter.or(Filter.toolUse(), Filter.toolResult())

/**
 * Each `tool_use` paired with its `tool_result`, emitted when the result
 * arrives (so in result order); uses still unanswered at the end of the
 * stream are emitted last, with no result.
 *
 * @since 0.1.0
 * @category views
 */
export const toolCalls = <E, R>(self: Stream.Stream<Item.Item, E, R>): Stream.Stream<ToolCall, E, R> =>
  self.pipe(
    Stream.filter(toolItem),
    Stream.mapEffect((item) => Effect.map(Clock.currentTimeMillis, (at) => [item, at] as const)),
    Stream.mapAccum(
      () => new Map<string, Pending>(),
      (pending, [item, at]): readonly [Map<string, Pending>, ReadonlyArray<ToolCall>] => {
        if (item.kind === "tool_use") {
          pending.set(item.id, { use: item, at })
          return [pending, []]
        }
        const use = pending.get(item.toolUseId)
        if (use === undefined) return [pending, []]
        pending.delete(item.toolUseId)
        const start = timestampOf(use.use)
        const end = timestampOf(item)
        const millis = start !== undefined && end !== undefined ? end - start : at - use.at
        return [pending, [{ use: use.use, result: item, duration: Duration.millis(Math.max(0, millis)) }]]
      },
      { onHalt: (pending) => Array.from(pending.values(), ({ use }) => ({ use, result: undefined, duration: undefined })) }
    )
  )

const mainText = Filter.and(Filter.text, Filter.main)
const endsTurn = Filter.and(Filter.main, Filter.or(Filter.messageType("user"), Filter.messageType("result")))

/**
 * The main agent's text, one string per turn: the text blocks of its
 * assistant messages up to the next user message or result, joined by
 * newlines. Turns without text give nothing.
 *
 * @since 0.1.0
 * @category views
 */
export const textOnly = <E, R>(self: Stream.Stream<Item.Item, E, R>): Stream.Stream<string, E, R> =>
  Stream.mapAccum(
    self,
    (): Array<string> => [],
    (parts, item): readonly [Array<string>, ReadonlyArray<string>] => {
      if (mainText(item)) {
        parts.push(item.text)
        return [parts, []]
      }
      if (endsTurn(item) && parts.length > 0) return [[], [parts.join("\n")]]
      return [parts, []]
    },
    { onHalt: (parts) => parts.length > 0 ? [parts.join("\n")] : [] }
  )

// The last run's answer: a `success` result's `result` text; for an error result (`error_max_turns`,
// `error_during_execution`, which carry no text) the main agent's last turn of text in that run (as
// `textOnly` cuts turns); for text after the last result (a stream cut before its result) or no result
// at all, that text's last turn. An earlier run's answer is never returned for a later run that failed.

/**
 * The final answer of the stream's last run: the text `claude -p` prints
 * (with `is_error: true`, the error report: see {@link errorsOnly}), else the
 * main agent's last turn of text in that run, or `None`.
 *
 * @since 0.1.0
 * @category views
 */
export const finalText = <E, R>(self: Stream.Stream<Item.Item, E, R>): Effect.Effect<Option.Option<string>, E, R> =>
  self.pipe(
    Stream.filter(Filter.or(mainText, endsTurn)),
    Stream.runFold(
      () => ({ answer: Option.none<string>(), turn: [] as Array<string>, last: Option.none<string>() }),
      (state, item) => {
        if (mainText(item)) {
          state.turn.push(item.text)
          return state
        }
        if (state.turn.length > 0) state.last = Option.some(state.turn.join("\n"))
        state.turn = []
        if (item.messageType === "result") {
          state.answer = item.kind === "result" && item.message._tag === "ResultSuccess"
            ? Option.some(item.message.result)
            : state.last
          state.last = Option.none()
        }
        return state
      }
    ),
    Effect.map((state) =>
      state.turn.length > 0 ? Option.some(state.turn.join("\n")) : Option.orElse(state.last, () => state.answer)
    )
  )

/**
 * Only the errors (see `Filter.error`): a failed call is held until its
 * result and emitted just before it, as `Item.select` does.
 *
 * @since 0.1.0
 * @category views
 */
export const errorsOnly = <E, R>(self: Stream.Stream<Item.Item, E, R>): Stream.Stream<Item.Item, E, R> =>
  Stream.mapAccumArray(
    self,
    () => Calls.make<undefined>(Filter.error.ast)!,
    (calls, items) => [calls, Decisions.selectInto(calls, items, [])],
    { onHalt: Decisions.selectAtEnd }
  )
