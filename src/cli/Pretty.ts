/**
 * The pretty display: a pure fold over stream-json messages (state + message -> output and spinner status).
 * It reads messages in their wire shape (what `encodeMessage` gives back and what recordings hold), so the
 * same renderer serves live runs, recordings and pipes.
 *
 * - assistant text streams from `text_delta`s when partial messages are on, otherwise per message, never twice;
 * - each tool call is one line with its complete input, its result one line under it;
 * - subagent activity is indented under the Task call that started it;
 * - the closing line carries the result's turns, durations and cost, or the error and its reason.
 *
 * @since 0.1.0
 */
import type * as Screen from "./Screen.ts"
import type { Style } from "./Style.ts"
import * as ToolLine from "./ToolLine.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly cwd: string | undefined
  /** Tool calls seen so far by id: name and nesting depth, for result lines and subagent indentation. */
  readonly tools: ReadonlyMap<string, { readonly name: string; readonly depth: number }>
  /** Message ids whose text was already shown from deltas. */
  readonly streamed: ReadonlySet<string>
  /** The message id of the current partial stream, per parent (subagent) id. */
  readonly current: string | undefined
  /** Whether the cursor is in the middle of streamed text. */
  readonly midText: boolean
  /** Whether the last thing printed was a blank line (or nothing), so blocks get exactly one blank between. */
  readonly spaced: boolean
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const initial: State = {
  cwd: undefined,
  tools: new Map(),
  streamed: new Set(),
  current: undefined,
  midText: false,
  spaced: true
}

/**
 * What one message produces: text for the screen and, when it changes, the spinner's status.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output {
  readonly text: string
  readonly status?: Screen.Status | null
}

type Json = Record<string, any>

const obj = (u: unknown): Json | undefined => typeof u === "object" && u !== null ? u as Json : undefined

/**
 * `7.9s`, `850ms`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const seconds = (ms: number): string => ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`

/**
 * `$0.91`, `$0.0042`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const dollars = (usd: number): string =>
  usd >= 0.1 || usd === 0 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`

/**
 * The closing line of a session from its `result` message.
 *
 * @since 0.1.0
 * @category formatting
 */
export const closingLine = (result: Json, style: Style): string => {
  const turns = typeof result.num_turns === "number" ? `${result.num_turns} turn${result.num_turns === 1 ? "" : "s"}` : undefined
  const total = typeof result.duration_ms === "number" ? `${seconds(result.duration_ms)} total` : undefined
  const api = typeof result.duration_api_ms === "number" ? ` (${seconds(result.duration_api_ms)} API)` : ""
  const cost = typeof result.total_cost_usd === "number" ? dollars(result.total_cost_usd) : undefined
  const figures = [turns, total === undefined ? undefined : total + api, cost].filter((x) => x !== undefined).join(", ")
  const failed = result.subtype !== "success" || result.is_error === true
  if (!failed) return style.green(style.bold("Session complete")) + (figures === "" ? "" : `: ${figures}`)
  const reason = Array.isArray(result.errors) && result.errors.length > 0
    ? result.errors.map(String).join("; ")
    : typeof result.result === "string" && result.result !== ""
    ? result.result
    : String(result.subtype ?? "error")
  return style.red(style.bold(`Session failed (${result.subtype === "success" ? "is_error" : result.subtype ?? "error"})`)) +
    `: ${ToolLine.oneLine(reason, 200)}` + (figures === "" ? "" : ` — ${figures}`)
}

const indent = (depth: number) => "  ".repeat(depth)

const depthOf = (state: State, parent: unknown): number =>
  typeof parent === "string" ? (state.tools.get(parent)?.depth ?? 0) + 1 : 0

// Starts a new block: ends streamed text with a newline and puts one blank line before it.
const block = (state: State, text: string, blank = true): [State, string] => {
  const close = state.midText ? "\n" : ""
  const gap = blank && !state.spaced ? "\n" : ""
  return [{ ...state, midText: false, spaced: false }, close + gap + text]
}

const textLines = (text: string, depth: number): string =>
  text.trim().split("\n").map((l) => indent(depth) + l).join("\n") + "\n"

const toolResultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((b) => obj(b)?.type === "text" ? String(obj(b)!.text) : "").filter((t) => t !== "").join("\n")
    : ""

const waiting = "Waiting for the model…"

/**
 * Renders one message (wire shape) given the state so far.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (state: State, message: unknown, style: Style): [State, Output] => {
  const m = obj(message)
  if (m === undefined) return [state, { text: "" }]
  const parent = m.parent_tool_use_id
  const depth = depthOf(state, parent)
  switch (m.type) {
    case "system": {
      if (m.subtype === "init") {
        const info = [m.model, m.permissionMode ? `permissions: ${m.permissionMode}` : undefined, m.cwd]
          .filter((x) => typeof x === "string").join(" · ")
        const [next, text] = block({ ...state, cwd: typeof m.cwd === "string" ? m.cwd : state.cwd },
          style.dim(`${depth > 0 ? indent(depth) : ""}Session ${String(m.session_id ?? "").slice(0, 8)} · ${info}`) + "\n")
        return [next, { text, status: waiting }]
      }
      if (m.subtype === "api_retry") {
        const [next, text] = block(state, style.yellow(`${indent(depth)}↻ API retry ${m.attempt ?? ""}${m.max_retries ? `/${m.max_retries}` : ""}: ${m.error ?? m.error_status ?? ""}`) + "\n")
        return [next, { text }]
      }
      if (m.subtype === "compact_boundary") {
        const [next, text] = block(state, style.dim(`${indent(depth)}— conversation compacted —`) + "\n")
        return [next, { text }]
      }
      return [state, { text: "" }]
    }
    case "stream_event": {
      const event = obj(m.event)
      if (event?.type === "message_start") {
        return [{ ...state, current: obj(event.message)?.id }, { text: "", status: waiting }]
      }
      const delta = obj(event?.delta)
      if (event?.type === "content_block_delta" && delta?.type === "text_delta" && typeof delta.text === "string") {
        const id = state.current
        const streamed = id === undefined ? state.streamed : new Set(state.streamed).add(id)
        const prefix = state.midText ? "" : (state.spaced ? "" : "\n") + indent(depth)
        const body = delta.text.replace(/\n/g, "\n" + indent(depth))
        return [{ ...state, streamed, midText: !delta.text.endsWith("\n"), spaced: false }, { text: prefix + body }]
      }
      return [state, { text: "" }]
    }
    case "assistant": {
      const msg = obj(m.message)
      const content: ReadonlyArray<unknown> = Array.isArray(msg?.content) ? msg!.content : []
      const already = typeof msg?.id === "string" && state.streamed.has(msg.id)
      let s = state
      let out = ""
      let status: Screen.Status | null | undefined
      for (const raw of content) {
        const b = obj(raw)
        if (b?.type === "text" && typeof b.text === "string" && b.text.trim() !== "") {
          if (already) continue
          const [next, text] = block(s, textLines(b.text, depth))
          s = next
          out += text
        } else if (b?.type === "thinking" && typeof b.thinking === "string" && b.thinking.trim() !== "") {
          const [next, text] = block(s, style.dim(style.magenta(`${indent(depth)}✻ Thinking…`)) + "\n")
          s = next
          out += text
        } else if (
          (b?.type === "tool_use" || b?.type === "server_tool_use" || b?.type === "mcp_tool_use") &&
          !s.tools.has(String(b.id))
        ) {
          const name = String(b.name)
          const tools = new Map(s.tools).set(String(b.id), { name, depth })
          const [next, text] = block({ ...s, tools },
            `${indent(depth)}${style.green("●")} ${style.bold(ToolLine.call(name, b.input, s.cwd))}\n`)
          s = next
          out += text
          status = `Running ${name}…`
        }
      }
      return [s, status === undefined ? { text: out } : { text: out, status }]
    }
    case "user": {
      const msg = obj(m.message)
      const content: ReadonlyArray<unknown> = Array.isArray(msg?.content) ? msg!.content : []
      let s = state
      let out = ""
      for (const raw of content) {
        const b = obj(raw)
        if (b?.type !== "tool_result") continue
        const tool = s.tools.get(String(b.tool_use_id))
        const summary = ToolLine.result({
          toolName: tool?.name,
          isError: b.is_error === true,
          text: toolResultText(b.content),
          meta: m.tool_use_result
        })
        const line = `${indent(tool?.depth ?? depth)}  ⎿  ${b.is_error === true ? style.red(summary) : style.dim(summary)}\n`
        const [next, text] = block(s, line, false)
        s = next
        out += text
      }
      return out === "" ? [s, { text: "" }] : [s, { text: out, status: waiting }]
    }
    case "result": {
      const [next, text] = block(state, closingLine(m, style) + "\n")
      return [next, { text, status: null }]
    }
    default:
      return [state, { text: "" }]
  }
}

/**
 * Renders a whole recording at once (for snapshots and non-TTY output): the concatenated text.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderAll = (messages: Iterable<unknown>, style: Style): string => {
  let state = initial
  let out = ""
  for (const message of messages) {
    const [next, output] = render(state, message, style)
    state = next
    out += output.text
  }
  return out + (state.midText ? "\n" : "")
}
