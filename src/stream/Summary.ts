/**
 * Run summaries: a `Sink` ({@link sink}) and a pure fold usable without Effect ({@link summarize}) that turn
 * a run's messages into a {@link RunSummary}: the final response, success, cost, durations, turns, usage
 * per model, permission denials, session id.
 *
 * @since 0.1.0
 */
import * as Sink from "effect/Sink"
import { isResultMessage, type Message } from "../schema/Message.ts"
import type { PermissionDenial, ResultMessage } from "../schema/Result.ts"
import type { ModelUsage, Usage } from "../schema/Usage.ts"
import { type DecodeError, isDecodeError } from "./DecodeError.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface RunSummary {
  /** The final response: the result text, or the last assistant text when that is empty. */
  readonly finalText: string
  /** A result line was seen. */
  readonly completed: boolean
  /** Completed with subtype `success` and `is_error` false. */
  readonly success: boolean
  /** The result's subtype (`success`, `error_max_turns`, ...), undefined without a result. */
  readonly subtype: string | undefined
  readonly isError: boolean
  /** The session's cost so far, as its last result reports it (a running total). */
  readonly totalCostUsd: number | undefined
  /** Wall time of the session's runs, added up (each result reports its own run's). */
  readonly durationMs: number | undefined
  /** Time spent in API calls, as the last result reports it (a running total). */
  readonly durationApiMs: number | undefined
  /** Turns of the session's runs, added up (each result reports its own run's). */
  readonly numTurns: number | undefined
  /** Result lines of the session: one per run. */
  readonly runs: number
  /** Messages seen (every line that decoded, stream events included). */
  readonly messageCount: number
  /** Lines that failed to decode (`onBadLine: "emit"`). */
  readonly decodeErrorCount: number
  /** The main loop's usage in the last run, as its result reports it. */
  readonly usage: Usage | undefined
  /** Usage and cost per model, as the last result reports it (running totals of the session). */
  readonly modelUsage: { readonly [model: string]: ModelUsage }
  readonly permissionDenials: ReadonlyArray<PermissionDenial>
  /** The error messages of an error result. */
  readonly errors: ReadonlyArray<string>
  readonly sessionId: string | undefined
  /** The model the run started with (from the `init` line). */
  readonly model: string | undefined
  /** The result message itself, for anything else it carries. */
  readonly result: ResultMessage | undefined
}

/**
 * The fold's state.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly messageCount: number
  readonly decodeErrorCount: number
  readonly sessionId: string | undefined
  readonly model: string | undefined
  readonly result: ResultMessage | undefined
  /** Results of the current session so far, and their turns and wall time added up. */
  readonly runs: number
  readonly turns: number
  readonly runDurationMs: number
  /** API message id and text of the last main-thread assistant message with text. */
  readonly lastAssistantId: string | undefined
  readonly lastAssistantText: string
}

/**
 * @since 0.1.0
 * @category folding
 */
export const initial: State = {
  messageCount: 0,
  decodeErrorCount: 0,
  sessionId: undefined,
  model: undefined,
  result: undefined,
  runs: 0,
  turns: 0,
  runDurationMs: 0,
  lastAssistantId: undefined,
  lastAssistantText: ""
}

// The figures come from the run's `result` lines. A process can write several (a background subagent's
// completion is answered in a run of its own; a stream-json session writes one per prompt): `numTurns` and
// `durationMs` add up the runs, while cost, API time and `modelUsage` are the session's running totals,
// which its last result reports. When a stream holds several sessions, the last one counts. An empty result
// text falls back to the last main-thread assistant text, so a completed run never summarizes to "".

/**
 * Adds one message (or decode failure) to the state.
 *
 * @since 0.1.0
 * @category folding
 */
export const step = (state: State, input: Message | DecodeError): State => {
  if (isDecodeError(input)) return { ...state, decodeErrorCount: state.decodeErrorCount + 1 }
  const messageCount = state.messageCount + 1
  const sessionId = input._tag === "UnknownMessage" ? input.raw.session_id : (input as { readonly session_id?: unknown }).session_id
  const next = typeof sessionId === "string" && sessionId !== state.sessionId
    ? { ...state, messageCount, sessionId }
    : { ...state, messageCount }
  if (isResultMessage(input)) {
    // A result of another session starts the count again.
    const same = state.result === undefined || state.result.session_id === input.session_id
    return {
      ...next,
      result: input,
      runs: (same ? state.runs : 0) + 1,
      turns: (same ? state.turns : 0) + input.num_turns,
      runDurationMs: (same ? state.runDurationMs : 0) + input.duration_ms
    }
  }
  if (input._tag === "SystemInit") return { ...next, model: input.model }
  if (input._tag === "AssistantMessage" && (input.parent_tool_use_id ?? null) === null) {
    const text = input.text
    if (text.length === 0) return next
    // The CLI writes one line per content block; blocks of one API message add up.
    return input.message.id === state.lastAssistantId
      ? { ...next, lastAssistantText: state.lastAssistantText + "\n" + text }
      : { ...next, lastAssistantId: input.message.id, lastAssistantText: text }
  }
  return next
}

/**
 * The summary of the state.
 *
 * @since 0.1.0
 * @category folding
 */
export const finish = (state: State): RunSummary => {
  const r = state.result
  const resultText = r !== undefined && r._tag === "ResultSuccess" ? r.result : ""
  return {
    finalText: resultText.length > 0 ? resultText : state.lastAssistantText,
    completed: r !== undefined,
    success: r !== undefined && r._tag === "ResultSuccess" && !r.is_error,
    subtype: r?.subtype,
    isError: r !== undefined && r.is_error,
    totalCostUsd: r?.total_cost_usd,
    durationMs: r === undefined ? undefined : state.runDurationMs,
    durationApiMs: r?.duration_api_ms,
    numTurns: r === undefined ? undefined : state.turns,
    runs: state.runs,
    messageCount: state.messageCount,
    decodeErrorCount: state.decodeErrorCount,
    usage: r?.usage,
    modelUsage: r?.modelUsage ?? {},
    permissionDenials: r?.permission_denials ?? [],
    errors: r !== undefined && r._tag === "ResultError" ? r.errors ?? [] : [],
    sessionId: r?.session_id ?? state.sessionId,
    model: state.model,
    result: r
  }
}

/**
 * Summarizes messages held in memory, without Effect.
 *
 * @since 0.1.0
 * @category folding
 */
export const summarize = (messages: Iterable<Message | DecodeError>): RunSummary => {
  let state = initial
  for (const message of messages) state = step(state, message)
  return finish(state)
}

/**
 * A sink that summarizes a run; works whatever `onBadLine` says.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Decode, Summary } from "effect-claude-code/stream"
 * declare const stdout: Stream.Stream<Uint8Array>
 * const summary = stdout.pipe(Decode.messages(), Stream.run(Summary.sink))
 * ```
 *
 * @since 0.1.0
 * @category sinks
 */
export const sink: Sink.Sink<RunSummary, Message | DecodeError> = Sink.map(
  Sink.reduce(() => initial, step),
  finish
)
