/**
 * The fold behind {@link Stats}: lines of one file (stream-json messages, transcript entries, or a transcript
 * line's kind alone) into its {@link Stats.FileStats}.
 */
import * as Item from "../../filter/Item.ts"
import * as Redaction from "../../internal/redaction.ts"
import * as Permission from "../../schema/Permission.ts"
import type * as Message from "../../schema/Message.ts"
import type * as ResultMessage from "../../schema/Result.ts"
import type * as Usage from "../../schema/Usage.ts"
import * as ToolUseResult from "../../schema/ToolUseResult.ts"
import type * as Decode from "../../stream/Decode.ts"
import { isDecodeError } from "../../stream/DecodeError.ts"
import * as TranscriptDecode from "../Decode.ts"
import * as TranscriptMessages from "../Messages.ts"
import type * as Stats from "./figures.ts"

type FileStats = Stats.FileStats
type ToolStats = Stats.ToolStats
type ModelSource = Stats.ModelSource
type ModelStats = Stats.ModelStats
type Seen = Stats.Seen

/** How many failed (or unfit) lines of a file are kept with their reasons (see `Stats.failureLimit`). */
export const failureLimit = 20

export const bump = (record: Record<string, number>, key: string, by = 1) => {
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

/** The figures of a file with no lines. */
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

export const toolOf = (stats: FileStats, name: string): ToolStats =>
  stats.tools[name] ??= { calls: 0, errors: 0, denied: 0, durationMs: 0 }

const mergeSource = (a: ModelSource | undefined, b: ModelSource): ModelSource => a === undefined || a === b ? b : "mixed"

// A model's figures as a result (or an assistant message, at no cost) gives them.
export type Figures = { [K in Exclude<keyof ModelStats, "source">]: number }

const tokenKeys = ["inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"] as const

const zero = (): Figures => ({ costUsd: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 })

const addFigures = (into: Figures, from: Figures) => {
  into.costUsd += from.costUsd
  for (const key of tokenKeys) into[key] += from[key]
}

export const addModel = (stats: FileStats, name: string, source: ModelSource, figures: Figures, priced = false) => {
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
export interface Counter {
  readonly push: (entry: Decode.DecodedLine | Decode.DecodeError) => void
  readonly pushEntry: (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => void
  readonly pushTranscriptEntry: (entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => void
  /** A transcript line that holds nothing counted but its kind (see `plain.ts`). */
  readonly pushPlain: (line: number, kind: string) => void
  /** The file's figures, its messages left out where `seen` (if any) holds them; `seen` then holds them too. */
  readonly done: () => FileStats
  /** The file's figures before {@link settle}: counted apart from the files before it. */
  readonly unsettled: () => Unsettled
}

/** An assistant message's usage, by its key in `Seen` (`undefined`: none, it always counts). */
interface MessageUsage {
  readonly model: string
  readonly figures: Figures
  readonly key: string | undefined
}

/**
 * A file counted but for its tokens and cost, which depend on the files counted before it (a message copied into
 * several counts for the first): its sessions' figures from their results, and their assistant messages. Plain
 * data: a file can be counted apart from the others, then settled in the order of the files.
 */
export interface Unsettled {
  readonly stats: FileStats
  readonly results: ReadonlyArray<readonly [session: string, models: Readonly<Record<string, Figures>>]>
  readonly messages: ReadonlyArray<readonly [session: string, messages: ReadonlyArray<MessageUsage>]>
}

/**
 * The figures of an {@link Unsettled} file: with `seen`, its messages an earlier file counted are left out, and
 * the rest claimed for it (a later file's copy is not counted again). A session with results counts its results'
 * figures; one without, its assistant messages, priced by `price` when it knows the model.
 */
export const settle = (
  unsettled: Unsettled,
  seen: Seen | undefined,
  price?: (model: string, tokens: Figures) => number | undefined
): FileStats => {
  const stats = unsettled.stats
  const covered = new Set<string>()
  for (const [id, figures] of unsettled.results) {
    // Results without modelUsage (older CLIs) leave the session to its assistant messages.
    if (Object.keys(figures).length > 0) covered.add(id)
    for (const [name, f] of Object.entries(figures)) addModel(stats, name, "result", f)
  }
  // Claimed by this file only once all of it is read: a copy within the file counts (as it did alone).
  const counted = unsettled.messages.map(([session, messages]) =>
    [session, seen === undefined ? messages : messages.filter(({ key }) => key === undefined || !seen.has(key))] as const
  )
  for (const [session, messages] of counted) {
    if (seen !== undefined) for (const { key } of messages) if (key !== undefined) seen.add(key)
    if (covered.has(session)) continue
    for (const { figures, model } of messages) {
      const cost = price?.(model, figures)
      addModel(stats, model, "assistant", cost === undefined ? figures : { ...figures, costUsd: cost }, cost !== undefined)
    }
  }
  stats.blank = stats.lines - stats.decoded - stats.failed
  return stats
}

// A message's key in {@link Seen}: none without a request id (each such message counts, as in ccusage). Made
// flat (`normalize` copies it; ids are ASCII, which it leaves as they are): V8 keeps a concatenation as its two
// parts, twice the memory of one string.
const seenKey = (id: string, requestId: string | undefined): string | undefined =>
  requestId === undefined ? undefined : `${id}:${requestId}`.normalize("NFC")

/**
 * A new {@link Counter} for the file `path`; with `seen`, its assistant messages counted in an earlier file
 * are left out of its tokens and cost (see {@link settle}).
 */
export const makeCounter = (path: string, price?: (model: string, tokens: Figures) => number | undefined, seen?: Seen): Counter => {
  const stats = empty(path)
  const flattener = Item.makeFlattener()
  const calledAt = new Map<string, number | undefined>()
  // Per session, the usage of each assistant message: the CLI writes one line per content block, all with the
  // same message id and usage, so a message counts once (its last line, the most complete).
  // Kept as figures, not as the usage object: a long transcript holds many messages.
  const assistantUsage = new Map<string, Map<string, MessageUsage>>()
  const countUsage = (session: string, id: string, model: string, usage: Usage.Usage, requestId: string | undefined) => {
    const key = seenKey(id, requestId)
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

  const unsettled = (): Unsettled => ({
    stats,
    results: [...sessions].map(([id, session]) => {
      const figures: Record<string, Figures> = {}
      addModels(figures, session.earlier)
      addModels(figures, session.current)
      return [id, figures] as const
    }),
    messages: [...assistantUsage].map(([session, messages]) => [session, [...messages.values()]] as const)
  })

  return { push, pushEntry, pushTranscriptEntry, pushPlain, done: () => settle(unsettled(), seen, price), unsettled }
}

