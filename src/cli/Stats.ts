/**
 * `stats`: what a stream-json file holds. Counting over the decoder's output with bad lines in-band, flattened into typed
 * {@link Item.Item}s (so tool results know their tool's name), line by line as the file is read (a
 * {@link sink}), so the same figures come out of a test, the command and a library user. A session transcript
 * file is counted from its typed entries directly ({@link transcriptFile}), to the figures its entries give
 * as stream-json messages ({@link transcriptSink}).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import * as Sink from "effect/Sink"
import * as nodeFs from "node:fs"
import * as Item from "../filter/Item.ts"
import * as Redaction from "../internal/redaction.ts"
import * as Permission from "../schema/Permission.ts"
import type * as Message from "../schema/Message.ts"
import type * as ResultMessage from "../schema/Result.ts"
import type * as Usage from "../schema/Usage.ts"
import * as Transcript from "../transcript/Transcript.ts"
import * as ToolUseResult from "../schema/ToolUseResult.ts"
import type * as Decode from "../stream/Decode.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
import * as Ndjson from "../stream/Ndjson.ts"
import * as TranscriptDecode from "../transcript/Decode.ts"
import * as TranscriptDetect from "../transcript/Detect.ts"
import * as TranscriptMessages from "../transcript/Messages.ts"
import * as Pricing from "../transcript/Pricing.ts"
import * as Input from "./Input.ts"
import * as Pretty from "./Pretty.ts"
import * as Style from "./Style.ts"
import * as ToolLine from "./ToolLine.ts"

/**
 * Calls of one tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolStats {
  calls: number
  /** Results flagged `is_error` (denials included). */
  errors: number
  /** Results the permission system refused. */
  denied: number
  /**
   * Time from the call to its result, summed over the results where it is known: the CLI's own duration
   * (`durationMs`, `totalDurationMs`) or else the difference of the two messages' timestamps, in ms.
   */
  durationMs: number
}

/**
 * Where a model's figures come from: the `result` lines' `modelUsage` (tokens and cost), or, for sessions no
 * result covers (a run cut short, a capture without its end), the usage of the assistant messages (tokens
 * only: the messages carry no cost). `mixed`: both, in a file or a total holding sessions of each kind.
 *
 * A result's `modelUsage` and `total_cost_usd` are running totals of its session (the CLI process), so a
 * session counts once, with its last result's figures; its `num_turns` and `duration_ms` are the run's own.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelSource = "result" | "assistant" | "mixed"

/**
 * Cost and tokens of one model.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelStats {
  /**
   * From the results: assistant messages carry no cost, so it is `null` when {@link source} is `assistant`,
   * except in a transcript, where it is priced from the tokens at list prices when the model has one.
   */
  costUsd: number | null
  inputTokens: number
  outputTokens: number
  cacheReadInputTokens: number
  cacheCreationInputTokens: number
  source: ModelSource
}

/**
 * One `result` line's figures.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultStats {
  readonly sessionId: string
  readonly subtype: string
  readonly isError: boolean
  /** The run's turns (`num_turns` counts per run, not per session). */
  readonly turns: number
  /** The run's wall time (`duration_ms`, per run as well). */
  readonly durationMs: number
  /** The run's cost: how much the session's running total grew since its previous result. */
  readonly costUsd: number
  /** The session's running total as the result wrote it (`total_cost_usd`). */
  readonly totalCostUsd: number
}

/**
 * A line that did not decode: its number, why, and (in a {@link total}) the file it is in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly file?: string
  readonly line: number
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FileStats {
  readonly path: string
  /**
   * Lines up to the last one that is not blank, blank lines included, so that the numbers of failed lines
   * are within it (trailing blank lines carry nothing and are not counted).
   */
  lines: number
  /** Blank lines among {@link lines}: neither decoded nor failed. */
  blank: number
  /** Lines that decoded, unknown variants included. */
  decoded: number
  /** Lines that decoded to an unknown message variant. */
  unknown: number
  failed: number
  /**
   * Transcript lines of bookkeeping entries (session metadata, not the conversation) of a known type whose
   * fields do not fit its schema: counted in {@link decoded} and {@link kinds} by their type, told in
   * {@link unfitLines}, and no failure (a metadata line never fails a transcript).
   */
  unfit: number
  /** Messages per kind: `type` or `type/subtype`. */
  readonly kinds: Record<string, number>
  readonly tools: Record<string, ToolStats>
  /** Tool results with `is_error: true`. */
  errorResults: number
  /** Types this version does not know, with how often: messages (`type/subtype`), blocks and stream events. */
  readonly unknownTypes: Record<string, number>
  /**
   * Failed lines: number and reason, and in a {@link total} the file that holds the line. The first
   * {@link failureLimit} of a file only: {@link failed} counts them all.
   */
  readonly failures: Array<Failure>
  /** The {@link unfit} lines, as {@link failures} tells failed ones: the first {@link failureLimit} of a file. */
  readonly unfitLines: Array<Failure>
  readonly models: Record<string, ModelStats>
  /** One entry per `result` message. */
  readonly results: Array<ResultStats>
}

/**
 * How many failed lines of a file are kept (and shown) with their reasons: a file of garbage would otherwise
 * print a line per line of it. The rest are counted.
 *
 * @since 0.1.0
 * @category constants
 */
export const failureLimit = 20

const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by
}

const kindOf = (message: Message.Message): string => {
  const fields: { readonly type?: unknown; readonly subtype?: unknown } = message._tag === "UnknownMessage"
    ? message.raw
    : message
  return typeof fields.subtype === "string" ? `${String(fields.type)}/${fields.subtype}` : String(fields.type)
}

// A transcript entry's kind: `type`, or `type/subtype`.
const kindOfRaw = (raw: { readonly type: string; readonly subtype?: unknown }): string =>
  typeof raw.subtype === "string" ? `${raw.type}/${raw.subtype}` : raw.type

const timeOf = (t: unknown): number | undefined => {
  const ms = typeof t === "string" ? Date.parse(t) : NaN
  return Number.isNaN(ms) ? undefined : ms
}

// The time from a call's timestamp to its result's, when both are times.
const measuredDuration = (calledAt: unknown, at: unknown): number | undefined => {
  const called = timeOf(calledAt)
  const time = called === undefined ? undefined : timeOf(at)
  return time !== undefined && called !== undefined ? time - called : undefined
}

const timestampOf = (message: Message.Message): number | undefined => timeOf((message as { readonly timestamp?: unknown }).timestamp)

// The duration the CLI reports in a tool's structured result, when it does. Only the shapes with one of these
// keys give one: a result without them (most are) is not worth classifying.
const reportedDuration = (meta: unknown): number | undefined => {
  if (typeof meta !== "object" || meta === null || !("durationMs" in meta || "durationSeconds" in meta || "totalDurationMs" in meta)) {
    return undefined
  }
  const c = ToolUseResult.classify(meta)
  switch (c._tag) {
    case "Glob":
    case "WebFetch":
      return c.value.durationMs
    case "WebSearch":
      return c.value.durationSeconds * 1000
    case "Agent":
      return c.value.totalDurationMs
    default:
      return undefined
  }
}

// Types the schemas fell back on inside known messages: content blocks, stream events and deltas.
const unknownInside = (item: Item.Item): string | undefined => {
  if (item.kind === "block" && item.block._tag === "UnknownBlock") return `${item.messageType} block ${item.block.type}`
  if (item.kind !== "stream_event") return undefined
  const event = item.message.event
  if (event._tag === "UnknownEvent") return `stream_event ${event.type}`
  if (event._tag === "ContentBlockDeltaEvent" && event.delta._tag === "UnknownDelta") return `delta ${event.delta.type}`
  return undefined
}

/**
 * The figures of a file with no lines.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty = (path: string): FileStats => ({
  path,
  lines: 0,
  blank: 0,
  decoded: 0,
  unknown: 0,
  failed: 0,
  unfit: 0,
  kinds: {},
  tools: {},
  errorResults: 0,
  unknownTypes: {},
  failures: [],
  unfitLines: [],
  models: {},
  results: []
})

const toolOf = (stats: FileStats, name: string): ToolStats =>
  stats.tools[name] ??= { calls: 0, errors: 0, denied: 0, durationMs: 0 }

const mergeSource = (a: ModelSource | undefined, b: ModelSource): ModelSource => a === undefined || a === b ? b : "mixed"

// A model's figures as a result (or an assistant message, at no cost) gives them.
type Figures = { [K in Exclude<keyof ModelStats, "source">]: number }

const tokenKeys = ["inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"] as const

const zero = (): Figures => ({ costUsd: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 })

const addFigures = (into: Figures, from: Figures) => {
  into.costUsd += from.costUsd
  for (const key of tokenKeys) into[key] += from[key]
}

const addModel = (stats: FileStats, name: string, source: ModelSource, figures: Figures, priced = false) => {
  const before = stats.models[name]
  const m = stats.models[name] = before ?? { ...zero(), costUsd: null, source }
  m.source = mergeSource(before?.source, source)
  for (const key of tokenKeys) m[key] += figures[key]
  // Assistant messages carry no cost: a model that only they count has none (null), not a cost of 0.
  if (source !== "assistant" || priced) m.costUsd = (m.costUsd ?? 0) + figures.costUsd
}

const addModels = (into: Record<string, Figures>, from: Readonly<Record<string, Figures>>) => {
  for (const [name, figures] of Object.entries(from)) addFigures(into[name] ??= zero(), figures)
}

/**
 * One session's results: the running totals of its last result, and those of earlier processes when the
 * totals started over (a session resumed by a new process that did not carry them on).
 */
interface SessionTotals {
  readonly earlier: Record<string, Figures>
  current: Readonly<Record<string, Figures>>
  costUsd: number
}

// A running total that went down belongs to a new process: the one before it ended with its last figures.
const startedOver = (session: SessionTotals, costUsd: number, models: Readonly<Record<string, Figures>>): boolean =>
  costUsd < session.costUsd ||
  Object.entries(session.current).some(([name, before]) => {
    const now = models[name]
    return now === undefined || now.costUsd < before.costUsd || tokenKeys.some((key) => now[key] < before[key])
  })

const resultFigures = (r: ResultMessage.ResultMessage): Record<string, Figures> =>
  Object.fromEntries(Object.entries(r.modelUsage ?? {}).map(([name, usage]) => [name, {
    costUsd: usage.costUSD,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: usage.cacheReadInputTokens,
    cacheCreationInputTokens: usage.cacheCreationInputTokens
  }]))

const fromUsage = (usage: Usage.Usage): Figures => ({
  costUsd: 0,
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens,
  cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
  cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0
})

/**
 * Counts the lines of one file as they come: {@link Counter.push} each decoded or failed line, then
 * {@link Counter.done}.
 */
interface Counter {
  readonly push: (entry: Decode.DecodedLine | Decode.DecodeError) => void
  readonly pushEntry: (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => void
  readonly pushTranscriptEntry: (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => void
  /** A transcript line that holds nothing counted but its kind (see {@link plainKind}). */
  readonly pushPlain: (line: number, kind: string) => void
  readonly done: () => FileStats
}

/**
 * The assistant messages already counted in earlier files, by `message.id:requestId`: a forked or resumed
 * session's transcript copies its history, which then counts for the first file that holds it (as ccusage
 * deduplicates). Grows with the unique messages of the files counted with it.
 *
 * @since 0.1.0
 * @category models
 */
export type Seen = Set<string>

// A message's key in {@link Seen}: none without a request id (each such message counts, as in ccusage). Made
// flat (`normalize` copies it; ids are ASCII, which it leaves as they are): V8 keeps a concatenation as its two
// parts, twice the memory of one string.
const seenKey = (id: string, requestId: string | undefined): string | undefined =>
  requestId === undefined ? undefined : `${id}:${requestId}`.normalize("NFC")

/**
 * A new {@link Counter} for the file `path`; with `seen`, its assistant messages counted in an earlier file
 * are left out of its tokens and cost.
 */
const makeCounter = (path: string, price?: (model: string, tokens: Figures) => number | undefined, seen?: Seen): Counter => {
  const stats = empty(path)
  const flattener = Item.makeFlattener()
  const calledAt = new Map<string, number | undefined>()
  // Per session, the usage of each assistant message: the CLI writes one line per content block, all with the
  // same message id and usage, so a message counts once (its last line, the most complete).
  // Kept as figures, not as the usage object: a long transcript holds many messages.
  const assistantUsage = new Map<string, Map<string, { readonly model: string; readonly figures: Figures; readonly key: string | undefined }>>()
  const countUsage = (session: string, id: string, model: string, usage: Usage.Usage, requestId: string | undefined) => {
    const key = seen === undefined ? undefined : seenKey(id, requestId)
    if (key !== undefined && seen!.has(key)) return
    const messages = assistantUsage.get(session) ?? assistantUsage.set(session, new Map()).get(session)!
    messages.set(id, { model, figures: fromUsage(usage), key })
  }
  // Per session, the running totals of its results (see SessionTotals).
  const sessions = new Map<string, SessionTotals>()
  // The main agent's error results since the last result line, by tool use id: their tool and whether they
  // counted as denied.
  // The run's result lists its refusals (`permission_denials`): that list has the last word over the wording.
  const sinceResult = new Map<string, { readonly tool: ToolStats; denied: boolean }>()
  const settleDenials = (r: Item.ResultItem["message"]): void => {
    const listed = r.permission_denials
    if (listed === undefined) return sinceResult.clear()
    const ids = new Set(listed.map((d) => d.tool_use_id))
    for (const [id, seen] of sinceResult) {
      if (seen.denied === ids.has(id)) continue
      seen.tool.denied += ids.has(id) ? 1 : -1
    }
    sinceResult.clear()
  }

  // What is shown of a line's own text (a failure's reason, an unknown kind) is redacted with it.
  const redact = Redaction.lazyProcessRedactor()

  // A line's place in the file, and its failure when it failed (a bookkeeping entry that does not fit is
  // counted by its type instead: see FileStats.unfit).
  const pushLine = (entry: { readonly line: number } | Decode.DecodeError): entry is Decode.DecodeError => {
    stats.lines = Math.max(stats.lines, entry.line)
    if (!isDecodeError(entry)) return false
    // The reason may quote the line's values (a credential among them): kept redacted.
    const reason = { line: entry.line, reason: `${entry.reason._tag}: ${redact(entry.detail)}` }
    const unfit = TranscriptDecode.unfitBookkeeping(entry)
    if (unfit !== undefined) {
      stats.unfit++
      if (stats.unfitLines.length < failureLimit) stats.unfitLines.push(reason)
      pushKind(unfit, false)
      return true
    }
    stats.failed++
    if (stats.failures.length < failureLimit) stats.failures.push(reason)
    return true
  }

  // The kinds of unknown messages as shown: an unknown `type` or `subtype` is the line's own text, which may be
  // a credential. Redacted once per kind (most lines are of a few kinds).
  const redactedKinds = new Map<string, string>()
  const shownKind = (kind: string): string => {
    const known = redactedKinds.get(kind)
    if (known !== undefined) return known
    const shown = redact(kind)
    redactedKinds.set(kind, shown)
    return shown
  }

  const pushKind = (raw: string, unknown: boolean) => {
    const kind = unknown ? shownKind(raw) : raw
    stats.decoded++
    bump(stats.kinds, kind)
    if (unknown) {
      stats.unknown++
      bump(stats.unknownTypes, kind)
    }
  }

  const push = (entry: Decode.DecodedLine | Decode.DecodeError): void => {
    if (pushLine(entry)) return
    pushKind(kindOf(entry.message), entry.message._tag === "UnknownMessage")
    pushMessage(entry.message)
  }

  // A transcript line: counted by its entry's type, its message (if it stands for one) as in stream-json.
  const pushEntry = (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError): void => {
    if (pushLine(entry)) return
    pushKind(kindOfRaw(entry.entry._tag === "UnknownEntry" ? entry.entry.raw : entry.entry), entry.entry._tag === "UnknownEntry")
    const message = TranscriptMessages.toMessage(entry.entry)
    if (message !== undefined) pushMessage(message)
  }

  // A transcript line counted from its entry: the figures pushEntry finds through the entry's stream-json
  // message and its items, without building either. Only what a transcript can hold matters here: tool
  // calls and results, their durations, unknown blocks and usage (no results, stream events or system lines).
  // A call's time is its entry's timestamp, parsed only when its result is timed by it.
  const calls = new Map<string, { readonly name: string; readonly at: unknown }>()
  const pushTranscriptEntry = (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError): void => {
    if (pushLine(entry)) return
    const e = entry.entry
    if (e._tag === "UnknownEntry") return pushKind(kindOfRaw(e.raw), true)
    pushKind(kindOfRaw(e), false)
    if (e._tag !== "UserEntry" && e._tag !== "AssistantEntry") return
    if (e._tag === "AssistantEntry") countUsage(e.sessionId ?? "", e.message.id, e.message.model, e.message.usage, e.requestId)
    const content = e.message.content
    // Text alone (a prompt) holds nothing counted.
    if (typeof content === "string") return
    for (const block of content) {
      if (block._tag === "ToolUseBlock") {
        toolOf(stats, block.name).calls++
        calls.set(block.id, { name: block.name, at: e.timestamp })
      } else if (block._tag === "ToolResultBlock") {
        const call = calls.get(block.tool_use_id)
        const tool = toolOf(stats, call?.name ?? "(unknown tool)")
        if (block.is_error === true) {
          tool.errors++
          stats.errorResults++
        }
        // A transcript's messages carry no tool_result_meta: the wording of the result decides.
        if (Permission.isPermissionDenied(block)) tool.denied++
        const structured = e._tag === "UserEntry" ? reportedDuration(e.toolUseResult) : undefined
        tool.durationMs += structured ?? measuredDuration(call?.at, e.timestamp) ?? 0
      } else if (block._tag === "UnknownBlock") {
        bump(stats.unknownTypes, `${e.type} block ${block.type}`)
      }
    }
  }

  const pushPlain = (line: number, kind: string): void => {
    stats.lines = Math.max(stats.lines, line)
    pushKind(kind, false)
  }

  const pushMessage = (message: Message.Message): void => {
    if (message._tag === "AssistantMessage") {
      countUsage(message.session_id ?? "", message.message.id, message.message.model, message.message.usage, message.request_id)
    }
    const time = timestampOf(message)
    for (const item of flattener.push(message)) {
      const unknown = unknownInside(item)
      if (unknown !== undefined) bump(stats.unknownTypes, unknown)
      if (item.kind === "tool_use") {
        toolOf(stats, item.name).calls++
        calledAt.set(item.id, time)
      } else if (item.kind === "tool_result") {
        const tool = toolOf(stats, item.toolName ?? "(unknown tool)")
        if (item.isError) {
          tool.errors++
          stats.errorResults++
        }
        if (item.denied) tool.denied++
        // A subagent's refusals may not be in the main run's list: only the main agent's are settled by it.
        if (item.isError && item.parentToolUseId === null) sinceResult.set(item.toolUseId, { tool, denied: item.denied })
        const started = calledAt.get(item.toolUseId)
        const measured = time !== undefined && started !== undefined ? time - started : undefined
        tool.durationMs += reportedDuration(item.toolUseResult) ?? measured ?? 0
      } else if (item.kind === "result") {
        const r = item.message
        settleDenials(r)
        const sessionId = r.session_id ?? ""
        const models = resultFigures(r)
        const session = sessions.get(sessionId)
        const fresh = session === undefined || startedOver(session, r.total_cost_usd, models)
        stats.results.push({
          sessionId,
          subtype: r.subtype,
          isError: r.isError,
          turns: r.num_turns,
          durationMs: r.duration_ms,
          costUsd: fresh ? r.total_cost_usd : r.total_cost_usd - session.costUsd,
          totalCostUsd: r.total_cost_usd
        })
        if (session === undefined) {
          sessions.set(sessionId, { earlier: {}, current: models, costUsd: r.total_cost_usd })
        } else {
          if (fresh) addModels(session.earlier, session.current)
          session.current = models
          session.costUsd = r.total_cost_usd
        }
      }
    }
  }

  const done = (): FileStats => {
    const covered = new Set<string>()
    for (const [id, session] of sessions) {
      const figures: Record<string, Figures> = {}
      addModels(figures, session.earlier)
      addModels(figures, session.current)
      // Results without modelUsage (older CLIs) leave the session to its assistant messages.
      if (Object.keys(figures).length > 0) covered.add(id)
      for (const [name, f] of Object.entries(figures)) addModel(stats, name, "result", f)
    }
    for (const [session, messages] of assistantUsage) {
      // Claimed by this file once it is done: a later file's copy is not counted again.
      if (seen !== undefined) for (const { key } of messages.values()) if (key !== undefined) seen.add(key)
      if (covered.has(session)) continue
      for (const { figures, model } of messages.values()) {
        const cost = price?.(model, figures)
        addModel(stats, model, "assistant", cost === undefined ? figures : { ...figures, costUsd: cost }, cost !== undefined)
      }
    }
    assistantUsage.clear()
    sessions.clear()
    stats.blank = stats.lines - stats.decoded - stats.failed
    return stats
  }

  return { push, pushEntry, pushTranscriptEntry, pushPlain, done }
}

/**
 * Counts the lines of a stream (a file as it is read).
 *
 * @since 0.1.0
 * @category counting
 */
export const sink = (path: string): Sink.Sink<FileStats, Decode.DecodedLine | Decode.DecodeError> =>
  Sink.map(
    Sink.reduce(() => makeCounter(path), (counter, entry: Decode.DecodedLine | Decode.DecodeError) => {
      counter.push(entry)
      return counter
    }),
    (counter) => counter.done()
  )

/**
 * Counts the lines of a session transcript (a `<session id>.jsonl` under `~/.claude/projects`): kinds are
 * entry types, tools, errors and tokens come from its user and assistant entries (tokens per model from
 * the assistant messages, each counted once); transcripts hold no cost, so it is priced from the tokens at the
 * models' list prices ({@link Pricing}), unknown for a model without one. With `seen` (shared by the files
 * of one count), tokens and cost leave out the messages an earlier file counted (see {@link Seen}).
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptSink = (
  path: string,
  seen?: Seen
): Sink.Sink<FileStats, TranscriptDecode.DecodedEntry | Decode.DecodeError> =>
  Sink.map(
    Sink.reduce(() => makeCounter(path, Pricing.costOf, seen), (counter, entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => {
      counter.pushEntry(entry)
      return counter
    }),
    (counter) => counter.done()
  )

// Reads of a transcript file: as much as Input.formatOf looks at (so the first read tells the format), into a
// buffer reused from file to file (the decoder keeps no chunk). Not more: a chunk's lines stay alive until it is
// counted, and with 1 MiB reads enough of them outlive young-generation collections to raise the peak memory by
// a fifth (a third on a 500 MB transcript) for no time saved.
// A Node Buffer, not a bare Uint8Array: the line splitter's `indexOf` is then Buffer's (memchr), several times
// faster on long lines.
const readBytes = Input.detectBytes
const spareBuffers: Array<Buffer> = []

const headDecoder = new TextDecoder()

// Whether a file is a transcript from its first read, as Input.formatOf tells: in most files the first line
// alone tells (a line that does is where detection stops), and decoding it costs less than decoding the 64 KiB
// Input.formatOf looks at. A first line that does not tell says "stream-json" here: then the whole head decides.
const isTranscript = (head: Uint8Array): boolean => {
  const end = head.indexOf(0x0a)
  if (end !== -1 && end < Input.detectBytes && TranscriptDetect.detect(headDecoder.decode(head.subarray(0, end + 1))) === "transcript") {
    return true
  }
  return Input.formatOf(head) === "transcript"
}

/**
 * How the lines of a transcript are checked. `"every"` (the default): every line through `JSON.parse` and the
 * full schema, as {@link transcriptSink} counts them. `"counted"`: only the lines that carry usage or tool calls
 * and results, or whose kind a scan of their text cannot tell; any other line (a prompt, a summary, a file
 * snapshot: about a quarter of a real transcript's bytes, none of its figures) is counted by its type alone,
 * so such a line broken inside (a required field missing, a bad value, a syntax error between its braces)
 * counts as decoded, not as failed or {@link FileStats.unfit}. It saves 2% to 7% of the CPU time, measured on
 * real-shaped transcripts: not the default, as those verdicts are figures `stats` reports.
 *
 * @since 0.1.0
 * @category models
 */
export type LineCheck = "counted" | "every"

const typeKey = "\"type\":\""

// The kind of a transcript line whose figures are its kind alone, told from its text without parsing it;
// `undefined` when the text does not tell for sure (the line then takes the full path). Sure means: the line's
// first `"type":"` is at its top level (nothing opened before it; in JSON text a quote inside a string is escaped,
// so the key is not inside a value), naming a known entry type whose lines count nothing else (not an assistant
// message: usage; not a system line: subtypes), and it is the line's only one (no content block, so no tool call
// or result), with no subtype, and the line an object as far as its ends show. The cheap refusals come first:
// most bytes are in lines that carry blocks, told by the first few hundred bytes.
const plainKind = (text: string): string | undefined => {
  if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) return undefined
  const at = text.indexOf(typeKey)
  if (at === -1 || text.lastIndexOf("{", at) > 0 || text.lastIndexOf("[", at) !== -1) return undefined
  const start = at + typeKey.length
  const type = text.slice(start, text.indexOf("\"", start))
  if (type === "assistant" || type === "system" || type.includes("\\") || !Transcript.isKnownType(type)) return undefined
  if (text.indexOf(typeKey, start) !== -1 || text.includes("\"subtype\"")) return undefined
  return type
}

// One transcript's bytes, chunk by chunk as they are read, to its figures: the lines the decoder
// (TranscriptDecode) would give, those with nothing counted but their kind (see LineCheck) without parsing them.
const transcriptCounting = (path: string, seen: Seen | undefined, check: LineCheck) => {
  const counter = makeCounter(path, Pricing.costOf, seen)
  const splitter = Ndjson.makeSplitter({ onBadLine: "emit" })
  const lines: Array<Ndjson.Line | Decode.DecodeError> = []
  const count = (framingError: Decode.DecodeError | undefined) => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      if (isDecodeError(line)) {
        counter.pushTranscriptEntry(line)
        continue
      }
      const kind = check === "every" ? undefined : plainKind(line.text)
      if (kind !== undefined) {
        counter.pushPlain(line.line, kind)
        continue
      }
      const entry = TranscriptDecode.decodeLine(line)
      counter.pushTranscriptEntry(isDecodeError(entry) ? entry : { line: line.line, raw: line.text, entry })
    }
    lines.length = 0
    if (framingError !== undefined) counter.pushTranscriptEntry(framingError)
  }
  return {
    push: (bytes: Uint8Array): void => {
      if (bytes.length > 0) count(splitter.push(bytes, lines))
    },
    done: (): FileStats => {
      count(splitter.end(lines))
      return counter.done()
    }
  }
}

/**
 * Counts a file when it is a session transcript (as {@link Input.detect} tells, from the same first read):
 * the figures {@link transcriptSink} gives over its bytes (its lines checked as `check` says: {@link LineCheck}), read in chunks straight into the decoder (no
 * stream between them), in memory bounded by a chunk and the longest line. `undefined` for a file that is
 * not a transcript, or not a regular file: the caller reads it as stream-json.
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFile = (
  path: string,
  seen?: Seen,
  check: LineCheck = "every"
): Effect.Effect<FileStats | undefined, PlatformError.PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    // Opening a named pipe would wait for its writer: special files are not sniffed (as in Input.detect).
    if ((yield* fs.stat(path)).type !== "File") return undefined
    const handle = yield* fs.open(path)
    const buffer = yield* Effect.acquireRelease(
      Effect.sync(() => spareBuffers.pop() ?? Buffer.allocUnsafeSlow(readBytes)),
      (b) => Effect.sync(() => spareBuffers.push(b))
    )
    let read = yield* handle.read(buffer)
    if (!isTranscript(buffer.subarray(0, read))) return undefined
    const counting = transcriptCounting(path, seen, check)
    while (true) {
      if (read > 0) counting.push(buffer.subarray(0, read))
      // A short read is the end of a regular file (as far as it is written): no read more to learn it.
      if (read < buffer.length) break
      read = yield* handle.read(buffer)
    }
    return counting.done()
  }))

/**
 * {@link transcriptFile} without Effect, through `node:fs` synchronously: the same figures, without a round trip
 * through the event loop per read (a directory of small transcripts is mostly such round trips). Throws what
 * `node:fs` throws; `undefined` for a file that is not a transcript or not a regular file (not opened).
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFileSync = (path: string, seen?: Seen, check: LineCheck = "every"): FileStats | undefined => {
  // Not even opened unless a regular file: opening a named pipe, however briefly, lets its writer in, whose
  // writes then fail once it is closed, and the read that counts it waits for a writer that never comes.
  if (!nodeFs.statSync(path).isFile()) return undefined
  const fd = nodeFs.openSync(path, nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK)
  const buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(readBytes)
  try {
    if (!nodeFs.fstatSync(fd).isFile()) return undefined
    let read = nodeFs.readSync(fd, buffer, 0, buffer.length, null)
    if (!isTranscript(buffer.subarray(0, read))) return undefined
    const counting = transcriptCounting(path, seen, check)
    while (true) {
      if (read > 0) counting.push(buffer.subarray(0, read))
      if (read < buffer.length) break
      read = nodeFs.readSync(fd, buffer, 0, buffer.length, null)
    }
    return counting.done()
  } finally {
    spareBuffers.push(buffer)
    nodeFs.closeSync(fd)
  }
}

/**
 * {@link transcriptFileSync} over many files: the figures of each in the order given (with `seen`, a message
 * copied into several counts for the first), `undefined` where a file is
 * not a transcript or could not be read (standard input, `-`, too): the caller reads those the usual way, to count
 * them as stream-json or say why they cannot be read.
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFiles = (
  paths: ReadonlyArray<string>,
  seen?: Seen,
  check: LineCheck = "every"
): Array<FileStats | undefined> =>
  paths.map((path) => {
    if (path === "-") return undefined
    try {
      return transcriptFileSync(path, seen, check)
    } catch {
      return undefined
    }
  })

/**
 * The figures of several files added up (`path` names the set).
 *
 * @since 0.1.0
 * @category counting
 */
export const total = (path: string, all: ReadonlyArray<FileStats>): FileStats => {
  const sum = empty(path)
  for (const s of all) {
    sum.lines += s.lines
    sum.blank += s.blank
    sum.decoded += s.decoded
    sum.unknown += s.unknown
    sum.failed += s.failed
    sum.unfit += s.unfit
    sum.errorResults += s.errorResults
    for (const [k, n] of Object.entries(s.kinds)) bump(sum.kinds, k, n)
    for (const [k, n] of Object.entries(s.unknownTypes)) bump(sum.unknownTypes, k, n)
    for (const [name, t] of Object.entries(s.tools)) {
      const into = toolOf(sum, name)
      into.calls += t.calls
      into.errors += t.errors
      into.denied += t.denied
      into.durationMs += t.durationMs
    }
    for (const [name, { source, costUsd, ...tokens }] of Object.entries(s.models)) {
      addModel(sum, name, source, { ...tokens, costUsd: costUsd ?? 0 }, costUsd !== null)
    }
    sum.results.push(...s.results)
    // Line numbers alone are ambiguous across files: the total's say whose line it is.
    const inFile = (f: Failure) => ({ file: f.file ?? s.path, line: f.line, reason: f.reason })
    sum.failures.push(...s.failures.map(inFile))
    sum.unfitLines.push(...s.unfitLines.map(inFile))
  }
  return sum
}

/**
 * The `--format json` object for one file: `path`, `lines`, `decoded`, `unknown`, `failed` (numbers),
 * `kinds`, `tools`, then the details.
 *
 * @since 0.1.0
 * @category formatting
 */
export const toJson = (stats: FileStats): Record<string, unknown> => ({ ...stats })

const byCount = (record: Record<string, number>) =>
  Object.entries(record).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ")

const tokens = (n: number) => n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : String(n)

const resultLine = (r: ResultStats): string =>
  `${r.subtype}${r.isError && r.subtype === "success" ? " (is_error)" : ""}: ${ToolLine.plural(r.turns, "turn")}, ` +
  `${Pretty.seconds(r.durationMs)}, ${Pretty.dollars(r.costUsd)}`

// Many results (a total over files): one line with the sums.
const resultsSum = (results: ReadonlyArray<ResultStats>): string => {
  const subtypes: Record<string, number> = {}
  for (const r of results) bump(subtypes, r.isError && r.subtype === "success" ? "success (is_error)" : r.subtype)
  const sum = (f: (r: ResultStats) => number) => results.reduce((acc, r) => acc + f(r), 0)
  return `${ToolLine.plural(results.length, "run")} (${byCount(subtypes)}): ${ToolLine.plural(sum((r) => r.turns), "turn")}, ` +
    `${Pretty.seconds(sum((r) => r.durationMs))}, ${Pretty.dollars(sum((r) => r.costUsd))}`
}

// `label   first line` with the next lines aligned under the first.
const section = (label: string, lines: ReadonlyArray<string>): Array<string> =>
  lines.map((line, i) => `  ${(i === 0 ? label : "").padEnd(9)}${line}`)

const modelText = (m: ModelStats): string => {
  const figures = `${tokens(m.inputTokens)} in / ${tokens(m.outputTokens)} out tokens` +
    ` · cache ${tokens(m.cacheReadInputTokens)} read / ${tokens(m.cacheCreationInputTokens)} written`
  switch (m.source) {
    case "result":
      return `${Pretty.dollars(m.costUsd ?? 0)} · ${figures}`
    case "assistant":
      return m.costUsd === null
        ? `${figures} (from the assistant messages: no result line, cost unknown)`
        : `${Pretty.dollars(m.costUsd)} · ${figures} (from the assistant messages, at list prices)`
    case "mixed":
      return `${Pretty.dollars(m.costUsd ?? 0)} · ${figures} (with the assistant messages of sessions without a result)`
  }
}

// A reason over several lines (a schema error lists its issues) stays under its `line N failed:` heading.
const failureLines = (f: Failure, what = "failed"): Array<string> =>
  f.reason.split("\n").map((line, i) =>
    `${i === 0 ? `  ${f.file === undefined ? "" : `${Style.printable(f.file)}: `}line ${f.line} ${what}: ` : "      "}${
      Style.printable(line)
    }`
  )

/**
 * The human-readable report of one file (or of a {@link total}).
 *
 * @since 0.1.0
 * @category formatting
 */
export const toText = (stats: FileStats): string => {
  const out: Array<string> = [
    stats.path,
    `  lines ${stats.lines} · decoded ${stats.decoded} · unknown ${stats.unknown} · failed ${stats.failed}` +
    (stats.unfit > 0 ? ` · unfit bookkeeping ${stats.unfit}` : "") + (stats.blank > 0 ? ` · blank ${stats.blank}` : "")
  ]
  if (Object.keys(stats.kinds).length > 0) out.push(...section("kinds", [byCount(stats.kinds)]))
  const tools = Object.entries(stats.tools).sort((a, b) => b[1].calls - a[1].calls)
  const width = Math.max(0, ...tools.map(([name]) => name.length))
  const digits = Math.max(0, ...tools.map(([, t]) => String(t.calls).length))
  out.push(...section(
    "tools",
    tools.map(([name, t]) =>
      [
        `${name.padEnd(width)}  ${String(t.calls).padStart(digits)} call${t.calls === 1 ? "" : "s"}`,
        t.errors > 0 ? ToolLine.plural(t.errors, "error") : undefined,
        t.denied > 0 ? `${t.denied} denied` : undefined,
        t.durationMs > 0 ? Pretty.seconds(t.durationMs) : undefined
      ].filter((x) => x !== undefined).join(" · ")
    )
  ))
  if (stats.errorResults > 0) {
    const denied = Object.values(stats.tools).reduce((n, t) => n + t.denied, 0)
    out.push(...section("errors", [
      `${ToolLine.plural(stats.errorResults, "tool result")} with is_error${denied > 0 ? ` (${denied} denied)` : ""}`
    ]))
  }
  out.push(...section("models", Object.entries(stats.models).map(([model, m]) => `${model}: ${modelText(m)}`)))
  out.push(...section("results", stats.results.length > 3 ? [resultsSum(stats.results)] : stats.results.map(resultLine)))
  if (Object.keys(stats.unknownTypes).length > 0) out.push(...section("unknown", [byCount(stats.unknownTypes)]))
  for (const f of stats.unfitLines) out.push(...failureLines(f, "unfit (bookkeeping, counted)"))
  const unfitUnshown = stats.unfit - stats.unfitLines.length
  if (unfitUnshown > 0) out.push(`  ${ToolLine.plural(unfitUnshown, "more unfit line")} not shown`)
  for (const f of stats.failures) out.push(...failureLines(f))
  const unshown = stats.failed - stats.failures.length
  if (unshown > 0) out.push(`  ${ToolLine.plural(unshown, "more failed line")} not shown`)
  return out.join("\n") + "\n"
}
