/**
 * `stats`: what a stream-json file holds. Pure counting over the lenient decoder's output, flattened into typed
 * {@link Item.Item}s (so tool results know their tool's name), so the same figures come out of a test, the
 * command and a library user.
 *
 * @since 0.1.0
 */
import * as Item from "../filter/Item.ts"
import type * as Message from "../schema/Message.ts"
import * as ToolUseResult from "../schema/ToolUseResult.ts"
import type * as Decode from "../stream/Decode.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
import * as Pretty from "./Pretty.ts"
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
 * Cost and tokens of one model, from the results' `modelUsage`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelStats {
  costUsd: number
  inputTokens: number
  outputTokens: number
  cacheReadInputTokens: number
  cacheCreationInputTokens: number
}

/**
 * One `result` line's figures.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultStats {
  readonly subtype: string
  readonly isError: boolean
  readonly turns: number
  readonly durationMs: number
  readonly costUsd: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FileStats {
  readonly path: string
  lines: number
  /** Lines that decoded, unknown variants included. */
  decoded: number
  /** Lines that decoded to an unknown message variant. */
  unknown: number
  failed: number
  /** Messages per kind: `type` or `type/subtype`. */
  readonly kinds: Record<string, number>
  readonly tools: Record<string, ToolStats>
  /** Tool results with `is_error: true`. */
  errorResults: number
  /** Types this version does not know, with how often: messages (`type/subtype`), blocks and stream events. */
  readonly unknownTypes: Record<string, number>
  /** Failed lines: number and reason. */
  readonly failures: Array<{ readonly line: number; readonly reason: string }>
  readonly models: Record<string, ModelStats>
  /** One entry per `result` message. */
  readonly results: Array<ResultStats>
}

const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by
}

const kindOf = (message: Message.Message): string => {
  const fields: { readonly type?: unknown; readonly subtype?: unknown } = message._tag === "UnknownMessage"
    ? message.raw
    : message
  return typeof fields.subtype === "string" ? `${String(fields.type)}/${fields.subtype}` : String(fields.type)
}

const timestampOf = (message: Message.Message): number | undefined => {
  const t = (message as { readonly timestamp?: unknown }).timestamp
  const ms = typeof t === "string" ? Date.parse(t) : NaN
  return Number.isNaN(ms) ? undefined : ms
}

// The duration the CLI reports in a tool's structured result, when it does.
const reportedDuration = (meta: unknown): number | undefined => {
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
  decoded: 0,
  unknown: 0,
  failed: 0,
  kinds: {},
  tools: {},
  errorResults: 0,
  unknownTypes: {},
  failures: [],
  models: {},
  results: []
})

const toolOf = (stats: FileStats, name: string): ToolStats =>
  stats.tools[name] ??= { calls: 0, errors: 0, denied: 0, durationMs: 0 }

const modelOf = (stats: FileStats, name: string): ModelStats =>
  stats.models[name] ??= { costUsd: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }

/**
 * Counts the decoded lines of one file.
 *
 * @since 0.1.0
 * @category counting
 */
export const count = (path: string, entries: Iterable<Decode.DecodedLine | Decode.DecodeError>): FileStats => {
  const stats = empty(path)
  const flattener = Item.makeFlattener()
  const calledAt = new Map<string, number | undefined>()
  for (const entry of entries) {
    stats.lines++
    if (isDecodeError(entry)) {
      stats.failed++
      stats.failures.push({ line: entry.line, reason: `${entry.reason}: ${entry.detail}` })
      continue
    }
    const message = entry.message
    stats.decoded++
    bump(stats.kinds, kindOf(message))
    if (message._tag === "UnknownMessage") {
      stats.unknown++
      bump(stats.unknownTypes, kindOf(message))
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
        const started = calledAt.get(item.toolUseId)
        const measured = time !== undefined && started !== undefined ? time - started : undefined
        tool.durationMs += reportedDuration(item.toolUseResult) ?? measured ?? 0
      } else if (item.kind === "result") {
        const r = item.message
        stats.results.push({
          subtype: r.subtype,
          isError: r.isError,
          turns: r.num_turns,
          durationMs: r.duration_ms,
          costUsd: r.total_cost_usd
        })
        for (const [name, usage] of Object.entries(r.modelUsage ?? {})) {
          const m = modelOf(stats, name)
          m.costUsd += usage.costUSD
          m.inputTokens += usage.inputTokens
          m.outputTokens += usage.outputTokens
          m.cacheReadInputTokens += usage.cacheReadInputTokens
          m.cacheCreationInputTokens += usage.cacheCreationInputTokens
        }
      }
    }
  }
  return stats
}

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
    sum.decoded += s.decoded
    sum.unknown += s.unknown
    sum.failed += s.failed
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
    for (const [name, m] of Object.entries(s.models)) {
      const into = modelOf(sum, name)
      for (const key of Object.keys(m) as Array<keyof ModelStats>) into[key] += m[key]
    }
    sum.results.push(...s.results)
    sum.failures.push(...s.failures)
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

/**
 * The human-readable report of one file (or of a {@link total}).
 *
 * @since 0.1.0
 * @category formatting
 */
export const toText = (stats: FileStats): string => {
  const out: Array<string> = [
    stats.path,
    `  lines ${stats.lines} · decoded ${stats.decoded} · unknown ${stats.unknown} · failed ${stats.failed}`
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
  out.push(...section(
    "models",
    Object.entries(stats.models).map(([model, m]) =>
      `${model}: ${Pretty.dollars(m.costUsd)} · ${tokens(m.inputTokens)} in / ${tokens(m.outputTokens)} out tokens` +
      ` · cache ${tokens(m.cacheReadInputTokens)} read / ${tokens(m.cacheCreationInputTokens)} written`
    )
  ))
  out.push(...section("results", stats.results.length > 3 ? [resultsSum(stats.results)] : stats.results.map(resultLine)))
  if (Object.keys(stats.unknownTypes).length > 0) out.push(...section("unknown", [byCount(stats.unknownTypes)]))
  for (const f of stats.failures) out.push(`  line ${f.line} failed: ${f.reason}`)
  return out.join("\n") + "\n"
}
