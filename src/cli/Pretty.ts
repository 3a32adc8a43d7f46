/**
 * The pretty display: a pure fold over typed {@link Item.Item}s (state + item -> output and spinner status),
 * so live runs, recordings, pipes and filtered views share one renderer. Feed items to {@link render}, then
 * {@link flush}; {@link renderAll} does both for a finished run.
 *
 * @since 0.1.0
 */
import type * as Item from "../filter/Item.ts"
import type * as ResultMessage from "../schema/Result.ts"
import * as Screen from "./Screen.ts"
import type { Style } from "./Style.ts"
import * as ToolLine from "./ToolLine.ts"

/**
 * A tool call seen so far: its name, nesting depth and call text, for result lines and subagent indentation.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly name: string
  readonly depth: number
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface State {
  /** The terminal's width in columns, when the output is a terminal: tool lines fit in it. */
  readonly width: number | undefined
  readonly cwd: string | undefined
  readonly calls: ReadonlyMap<string, Call>
  /** API message ids whose text was already shown from deltas. */
  readonly streamed: ReadonlySet<string>
  /** The API message id of the current partial stream. */
  readonly current: string | undefined
  /** Whether the cursor is in the middle of streamed text. */
  readonly midText: boolean
  /** Whether the last thing printed was a blank line (or nothing), so blocks get exactly one blank between. */
  readonly spaced: boolean
  /** The tool calls whose line was printed (a filter may hide some). */
  readonly shownCalls: ReadonlySet<string>
  /** The tool call whose line was printed last, with nothing after it yet. */
  readonly lastCall: string | undefined
  /** Whose output was printed last: a subagent's Task call id (`parent_tool_use_id`), `null` for the main session. */
  readonly lastParent: string | null | undefined
  /** The main session's assistant text shown last, with nothing after it yet. */
  readonly lastText: string | undefined
  /** Per session, the running totals of its last result. */
  readonly sessions: ReadonlyMap<string, SessionTotals>
  /**
   * Per session, the runs begun (`init` lines) and not yet ended by a result. An `init` while a run is open
   * is the CLI going on after a background task finished: the same session, told as one.
   */
  readonly open: ReadonlyMap<string, number>
  /**
   * Error results shown as `Error:` (by tool use id, with their call's text): the run's result may list
   * them among its `permission_denials` in a wording not known here.
   */
  readonly undenied: ReadonlyMap<string, string>
  /** Per session, the results of runs that went on (see `open`), to close with the last one. */
  readonly held: ReadonlyMap<string, ReadonlyArray<ResultMessage.ResultMessage>>
}

/**
 * What a session's results had added up to (`duration_api_ms` and `total_cost_usd` run on over its results).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionTotals {
  readonly apiMs: number
  readonly costUsd: number
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const initial: State = {
  width: undefined,
  cwd: undefined,
  calls: new Map(),
  streamed: new Set(),
  current: undefined,
  midText: false,
  spaced: true,
  shownCalls: new Set(),
  lastCall: undefined,
  lastParent: undefined,
  lastText: undefined,
  sessions: new Map(),
  open: new Map(),
  undenied: new Map(),
  held: new Map()
}

/**
 * What one item produces: text for the screen and, when it changes, the spinner's status (`null` hides it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Output {
  readonly text: string
  readonly status?: Screen.Status | null
}

/**
 * `850ms`, `7.9s`, `2m 05s`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const seconds = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)}ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : Screen.formatElapsed(ms)

/**
 * `$0.91`, `$0.0042`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const dollars = (usd: number): string => usd >= 0.1 || usd === 0 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`

/**
 * What a closing line knows besides its result: `shown`, the text right above it (a reason that is that
 * text, an API error the CLI writes as the assistant's answer too, is not told twice); `before`, the
 * session's totals at its previous result, if it had one.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClosingContext {
  readonly shown?: string | undefined
  readonly before?: SessionTotals | undefined
  /** Results of earlier runs told with this one (the session went on after a background task). */
  readonly earlier?: ReadonlyArray<ResultMessage.ResultMessage> | undefined
}

// The run's own cost, where the CLI writes it (`model_usage_since_last_result`, per model).
const ownCost = (result: ResultMessage.ResultMessage): number | undefined => {
  const usage = result.model_usage_since_last_result
  return usage === undefined ? undefined : Object.values(usage).reduce((sum, model) => sum + model.costUSD, 0)
}

// Totals that went down belong to a new process resuming the session: they start from nothing.
const since = (before: SessionTotals | undefined, result: ResultMessage.ResultMessage): SessionTotals | undefined =>
  before !== undefined && before.apiMs <= result.duration_api_ms && before.costUsd <= result.total_cost_usd
    ? before
    : undefined

/**
 * The closing line of a run from its `result` message:
 * `Session complete: 2 turns, 7.9s total (7.7s API), $0.91`, or `Session failed (subtype): reason — figures`.
 * After an earlier run of the same session: that run's API time and cost, then the session's cost so far
 * (`$0.0072, session $0.0149`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const closingLine = (result: ResultMessage.ResultMessage, style: Style, context: ClosingContext = {}): string => {
  const runs = [...(context.earlier ?? []), result]
  const costs = runs.map(ownCost)
  const own = costs.every((c) => c !== undefined) ? costs.reduce((sum, c) => sum + c, 0) : undefined
  // With the run's own figures, the session's totals go on from the previous result whatever they did.
  const before = own !== undefined ? context.before : since(context.before, result)
  // A run that made no API call of its own (`/compact`) reports 0 rather than the session's API time.
  const apiMs = before === undefined || result.duration_api_ms < before.apiMs
    ? result.duration_api_ms
    : result.duration_api_ms - before.apiMs
  const cost = own ?? result.total_cost_usd - (before?.costUsd ?? 0)
  const figures = [
    ToolLine.plural(runs.reduce((n, r) => n + r.num_turns, 0), "turn"),
    `${seconds(runs.reduce((ms, r) => ms + r.duration_ms, 0))} total (${seconds(apiMs)} API)`,
    dollars(cost),
    ...(before === undefined ? [] : [`session ${dollars(result.total_cost_usd)}`])
  ].join(", ")
  if (!result.isError) return `${style.green(style.bold("Session complete"))}: ${figures}`
  const reason = result._tag === "ResultError" ? (result.errors ?? []).join("; ") : result.result
  const head = style.red(style.bold(`Session failed (${result._tag === "ResultError" ? result.subtype : "is_error"})`))
  return reason.trim() === "" || reason.trim() === context.shown?.trim()
    ? `${head}: ${figures}`
    : `${head}: ${ToolLine.oneLine(reason, 200)} — ${figures}`
}

const indent = (depth: number) => "  ".repeat(depth)

/**
 * The narrowest argument a tool line gets on a narrow terminal: a line a little too wide wraps, one with no
 * argument left says nothing.
 *
 * @since 0.1.0
 * @category constants
 */
export const minArgument = 20

// What is left of the terminal's width for a call's argument: `  ● Name(` and `)` take the rest.
const argumentWidth = (width: number | undefined, depth: number, name: string): number =>
  width === undefined ? ToolLine.maxArgument : Math.max(minArgument, width - indent(depth).length - name.length - 4)

const depthOf = (state: State, item: Item.Item): number =>
  item.parentToolUseId === null ? 0 : (state.calls.get(item.parentToolUseId)?.depth ?? 0) + 1

// A call from an item, for the kinds that are tool calls (client, server and MCP tools).
const callOf = (item: Item.Item): { readonly id: string; readonly name: string; readonly input: unknown } | undefined => {
  if (item.kind === "tool_use") return item
  if (item.kind === "block" && (item.block._tag === "ServerToolUseBlock" || item.block._tag === "McpToolUseBlock")) {
    return item.block
  }
  return undefined
}

/**
 * Takes note of an item without showing it: tool calls (for result lines and subagent depth) and the
 * session's working directory. {@link render} does this itself; call it for the items a filter hides.
 *
 * @since 0.1.0
 * @category rendering
 */
export const observe = (state: State, item: Item.Item): State => {
  const call = callOf(item)
  if (call !== undefined && !state.calls.has(call.id)) {
    const depth = depthOf(state, item)
    const text = ToolLine.call(call.name, call.input, state.cwd, argumentWidth(state.width, depth, call.name))
    return { ...state, calls: new Map(state.calls).set(call.id, { name: call.name, depth, text }) }
  }
  if (item.kind === "system" && item.message._tag === "SystemInit" && item.parentToolUseId === null) {
    return { ...state, cwd: item.message.cwd }
  }
  if (item.kind === "stream_event" && item.message.event._tag === "MessageStartEvent") {
    return { ...state, current: item.message.event.message.id }
  }
  return state
}

// Starts a new block: ends streamed text with a newline and puts one blank line before it.
const block = (state: State, text: string, blank = true): [State, Output] => {
  const close = state.midText ? "\n" : ""
  const gap = blank && !state.spaced ? "\n" : ""
  return [{ ...state, midText: false, spaced: false, lastCall: undefined, lastText: undefined }, { text: close + gap + text }]
}

// The main session's text, shown now (or already, from its deltas): the closing line need not repeat it.
const mainText = (item: Item.TextItem, [state, output]: [State, Output]): [State, Output] =>
  [{ ...state, lastText: item.parentToolUseId === null ? item.text : undefined }, output]

const textLines = (text: string, depth: number): string =>
  text.trim().split("\n").map((l) => indent(depth) + l).join("\n") + "\n"

const waiting = "Waiting for the model…"

const withStatus = ([state, output]: [State, Output], status: Screen.Status | null): [State, Output] => [
  state,
  { ...output, status }
]

const system = (state: State, item: Item.SystemItem, depth: number, style: Style): [State, Output] => {
  const m = item.message
  switch (m._tag) {
    case "SystemInit": {
      const runs = depth === 0 ? state.open.get(m.session_id) ?? 0 : 0
      const open = depth === 0 ? new Map(state.open).set(m.session_id, runs + 1) : state.open
      // The session goes on after a background task: no second header.
      if (runs > 0) return [{ ...state, open }, { text: "" }]
      const info = [m.model, m.mode === undefined ? undefined : `permissions: ${m.mode}`, m.cwd]
        .filter((x) => x !== undefined).join(" · ")
      const line = style.dim(`${indent(depth)}Session ${m.session_id.slice(0, 8)} · ${info}`) + "\n"
      return withStatus(block({ ...state, open }, line), waiting)
    }
    case "SystemApiRetry":
      return block(
        state,
        style.yellow(`${indent(depth)}↻ API retry ${m.attempt}/${m.max_retries}: ${m.error_status ?? ""} ${m.error}`) + "\n"
      )
    case "SystemCompactBoundary":
      return block(state, style.dim(`${indent(depth)}— conversation compacted —`) + "\n")
    default:
      return [state, { text: "" }]
  }
}

const streamEvent = (state: State, item: Item.StreamEventItem, depth: number): [State, Output] => {
  const event = item.message.event
  if (event._tag === "MessageStartEvent") return [state, { text: "", status: waiting }]
  if (event._tag !== "ContentBlockDeltaEvent" || event.delta._tag !== "TextDelta") return [state, { text: "" }]
  const text = event.delta.text
  const streamed = state.current === undefined ? state.streamed : new Set(state.streamed).add(state.current)
  const prefix = state.midText ? "" : (state.spaced ? "" : "\n") + indent(depth)
  const next: State = { ...state, streamed, midText: !text.endsWith("\n"), spaced: false, lastCall: undefined, lastText: undefined }
  return [next, { text: prefix + text.replace(/\n/g, "\n" + indent(depth)) }]
}

const toolResult = (before: State, item: Item.ToolResultItem, depth: number, style: Style): [State, Output] => {
  let state = before
  const call = state.calls.get(item.toolUseId)
  const summary = ToolLine.result({
    toolName: item.toolName,
    isError: item.isError,
    denied: item.denied,
    text: item.block.text,
    meta: item.toolUseResult,
    cwd: state.cwd
  })
  const shown = item.isError ? style.red(summary) : style.dim(summary)
  const at = indent(call?.depth ?? depth)
  // Its call not on screen (a filter hid it): the result gets a line naming the call, hollow, of its own.
  if (!state.shownCalls.has(item.toolUseId)) {
    const name = call?.text ?? item.toolName ?? `tool ${item.toolUseId}`
    const [next, output] = block(state, `${at}${style.dim("○")} ${style.dim(name)}\n${at}  ⎿  ${shown}\n`)
    return [next, { ...output, status: waiting }]
  }
  if (item.isError && !item.denied) {
    state = { ...state, undenied: new Map(state.undenied).set(item.toolUseId, call?.text ?? item.toolName ?? item.toolUseId) }
  }
  // Not right under its call (parallel calls, subagent output in between): say which call it answers.
  const label = call !== undefined && state.lastCall !== item.toolUseId ? `${call.text}: ` : ""
  const [next, output] = block(state, `${at}  ⎿  ${label}${shown}\n`, false)
  return [next, { ...output, status: waiting }]
}

// A subagent's output after someone else's: a line naming its Task first, at the output's own indentation.
const withHeader = (before: State, item: Item.Item, style: Style): [State, Output] => {
  const [state, output] = renderItem(before, item, style)
  const parent = item.parentToolUseId
  if (output.text === "") return [state, output]
  const task = parent === null ? undefined : before.calls.get(parent)
  // Right under its Task's line, or after more of its own output, a subagent's output needs no header.
  if (task === undefined || before.lastParent === parent || before.lastCall === parent) {
    return [{ ...state, lastParent: parent }, output]
  }
  const [headed, header] = block(before, style.dim(`${indent(task.depth + 1)}↳ ${task.text}`) + "\n")
  // The item follows its header directly: no blank line between them.
  const [next, rest] = renderItem({ ...headed, spaced: true }, item, style)
  return [{ ...next, lastParent: parent }, { ...rest, text: header.text + rest.text }]
}

// What the display shows:
// - assistant text streams from `text_delta`s when partial messages are on, otherwise per message, never twice;
// - each tool call is one line with its complete input (cut to the terminal's width, or to `maxArgument`
//   characters off a terminal), its result one line under it (labelled with its call when other lines came
//   in between; under a hollow `○` line naming the call when a filter hid the call);
// - subagent activity is indented under the Task call that started it and, when it resumes after other
//   output, headed by a line naming its Task;
// - the closing line carries turns, durations and cost, or the error and its reason (unless the text just
//   above said it); a session's later runs show their own API time and cost (`model_usage_since_last_result`
//   where written) and the session's cost so far; a session that goes on after a background task keeps one
//   header and closes once, its runs' figures added up;
// - error results listed among the run's `permission_denials` are told as denied.

/**
 * Renders one item given the state so far.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (before: State, item: Item.Item, style: Style): [State, Output] => withHeader(before, item, style)

const closing = (before: State, result: ResultMessage.ResultMessage, style: Style): [State, Output] => {
  const session = result.session_id ?? ""
  const runs = before.open.get(session) ?? 0
  const held = [...(before.held.get(session) ?? []), result]
  // A run that went on after a background task: closed by the result of the last run, with it.
  if (runs > 1 && !result.isError) {
    return [{ ...before, open: new Map(before.open).set(session, runs - 1), held: new Map(before.held).set(session, held) }, {
      text: ""
    }]
  }
  // Results shown as errors that the run's result lists as refused: said before it closes.
  const refused = (result.permission_denials ?? []).flatMap((d) => {
    const call = before.undenied.get(d.tool_use_id)
    return call === undefined ? [] : [call]
  })
  const undenied = new Map(before.undenied)
  for (const d of result.permission_denials ?? []) undenied.delete(d.tool_use_id)
  const note = refused.length === 0 ? "" : style.red(`Denied, the run's result says: ${refused.join(", ")}`) + "\n"
  const state = { ...before, undenied, open: new Map(before.open).set(session, 0), held: new Map(before.held).set(session, []) }
  const line = closingLine(result, style, { shown: state.lastText, before: state.sessions.get(session), earlier: held.slice(0, -1) })
  const [noted, noteOutput] = note === "" ? [state, { text: "" }] : block(state, note)
  const [next, closed] = block(noted, line + "\n")
  const output = { ...closed, text: noteOutput.text + closed.text }
  // A run with no API time of its own (`/compact` reports 0) leaves the session's API time as it was.
  const apiMs = result.duration_api_ms === 0 ? state.sessions.get(session)?.apiMs ?? 0 : result.duration_api_ms
  const totals = { apiMs, costUsd: result.total_cost_usd }
  return [{ ...next, sessions: new Map(state.sessions).set(session, totals) }, output]
}

const renderItem = (before: State, item: Item.Item, style: Style): [State, Output] => {
  const depth = depthOf(before, item)
  const state = observe(before, item)
  const call = callOf(item)
  if (call !== undefined) {
    if (before.calls.has(call.id)) return [state, { text: "" }]
    const line = `${indent(depth)}${style.green("●")} ${style.bold(state.calls.get(call.id)!.text)}\n`
    const [next, output] = block(state, line)
    const shownCalls = new Set(next.shownCalls).add(call.id)
    return [{ ...next, shownCalls, lastCall: call.id }, { ...output, status: `Running ${call.name}…` }]
  }
  switch (item.kind) {
    case "system":
      return system(state, item, depth, style)
    case "stream_event":
      return streamEvent(state, item, depth)
    case "text":
      if (item.role !== "assistant" || item.text.trim() === "") return [state, { text: "" }]
      if (item.message.type === "assistant" && state.streamed.has(item.message.message.id)) {
        return mainText(item, [state, { text: "" }])
      }
      return mainText(item, block(state, textLines(item.text, depth)))
    case "thinking":
      return item.thinking.trim() === ""
        ? [state, { text: "" }]
        : block(state, style.dim(style.magenta(`${indent(depth)}✻ Thinking…`)) + "\n")
    case "tool_result":
      return toolResult(state, item, depth, style)
    case "result":
      return withStatus(closing(state, item.message, style), null)
    default:
      return [state, { text: "" }]
  }
}

/**
 * What is left to show when the input ends: the closing line of a session whose runs went on after a
 * background task and whose last result never came (its runs so far, told as one).
 *
 * @since 0.1.0
 * @category rendering
 */
export const flush = (before: State, style: Style): [State, Output] => {
  let state = before
  let text = ""
  for (const [session, held] of before.held) {
    if (held.length === 0) continue
    const [next, output] = closing({ ...state, open: new Map(state.open).set(session, 1), held: new Map(state.held).set(session, held.slice(0, -1)) }, held[held.length - 1]!, style)
    state = next
    text += output.text
  }
  return [state, { text }]
}

/**
 * Renders items held in memory at once (snapshots, tests): the concatenated text.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderAll = (items: Iterable<Item.Item>, style: Style): string => {
  let state = initial
  let out = ""
  for (const item of items) {
    const [next, output] = render(state, item, style)
    state = next
    out += output.text
  }
  const [last, rest] = flush(state, style)
  return out + rest.text + (last.midText ? "\n" : "")
}
