/**
 * `stats`: what a stream-json file holds. Pure counting over the lenient decoder's output, so the same
 * figures come out of a test, the command and a library user.
 *
 * @since 0.1.0
 */
import type * as Decode from "../stream/Decode.ts"
import { isDecodeError } from "../stream/DecodeError.ts"

/**
 * Calls of one tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolStats {
  calls: number
  errors: number
  /** Sum of the durations the CLI reported for its results (`durationMs`, `totalDurationMs`), in ms. */
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
 * @since 0.1.0
 * @category models
 */
export interface FileStats {
  readonly path: string
  lines: number
  decoded: number
  unknown: number
  failed: number
  /** Messages per kind: `type` or `type/subtype`. */
  readonly kinds: Record<string, number>
  readonly tools: Record<string, ToolStats>
  /** Tool results with `is_error: true`. */
  errorResults: number
  /** Kinds that decoded to an unknown variant, with how often. */
  readonly unknownTypes: Record<string, number>
  /** Failed lines: number and reason. */
  readonly failures: Array<{ readonly line: number; readonly reason: string }>
  readonly models: Record<string, ModelStats>
  /** One entry per `result` message. */
  readonly results: Array<{
    readonly subtype: string
    readonly isError: boolean
    readonly turns: number | null
    readonly durationMs: number | null
    readonly costUsd: number | null
  }>
}

const kindOf = (json: Record<string, any>): string =>
  typeof json.subtype === "string" ? `${json.type}/${json.subtype}` : String(json.type)

const bump = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1
}

const num = (u: unknown): number => typeof u === "number" && Number.isFinite(u) ? u : 0

// Whether the schema fell back to its unknown variant for this message.
const isUnknown = (message: unknown): boolean => {
  const tag = (message as { readonly _tag?: unknown })._tag
  return typeof tag === "string" && tag.startsWith("Unknown")
}

/**
 * Counts the decoded lines of one file.
 *
 * @since 0.1.0
 * @category counting
 */
export const count = (
  path: string,
  entries: Iterable<Decode.DecodedLine | Decode.DecodeError>
): FileStats => {
  const stats: FileStats = {
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
  }
  const toolNames = new Map<string, string>()
  const tool = (name: string): ToolStats => (stats.tools[name] ??= { calls: 0, errors: 0, durationMs: 0 })
  for (const entry of entries) {
    stats.lines++
    if (isDecodeError(entry)) {
      stats.failed++
      stats.failures.push({ line: entry.line, reason: `${entry.reason}: ${entry.detail}` })
      continue
    }
    stats.decoded++
    const json = JSON.parse(entry.raw) as Record<string, any>
    const kind = kindOf(json)
    bump(stats.kinds, kind)
    if (isUnknown(entry.message)) {
      stats.unknown++
      bump(stats.unknownTypes, kind)
    }
    const content: ReadonlyArray<any> = Array.isArray(json.message?.content) ? json.message.content : []
    if (json.type === "assistant") {
      for (const block of content) {
        if (block?.type === "tool_use" && typeof block.name === "string") {
          toolNames.set(String(block.id), block.name)
          tool(block.name).calls++
        }
      }
    } else if (json.type === "user") {
      for (const block of content) {
        if (block?.type !== "tool_result") continue
        const t = tool(toolNames.get(String(block.tool_use_id)) ?? "(unknown tool)")
        if (block.is_error === true) {
          t.errors++
          stats.errorResults++
        }
        const meta = json.tool_use_result
        if (typeof meta === "object" && meta !== null) t.durationMs += num(meta.durationMs ?? meta.totalDurationMs)
      }
    } else if (json.type === "result") {
      stats.results.push({
        subtype: String(json.subtype),
        isError: json.is_error === true,
        turns: typeof json.num_turns === "number" ? json.num_turns : null,
        durationMs: typeof json.duration_ms === "number" ? json.duration_ms : null,
        costUsd: typeof json.total_cost_usd === "number" ? json.total_cost_usd : null
      })
      for (const [model, usage] of Object.entries<any>(json.modelUsage ?? {})) {
        const m = (stats.models[model] ??= {
          costUsd: 0,
          inputTokens: 0,
          outputTokens: 0,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0
        })
        m.costUsd += num(usage?.costUSD)
        m.inputTokens += num(usage?.inputTokens)
        m.outputTokens += num(usage?.outputTokens)
        m.cacheReadInputTokens += num(usage?.cacheReadInputTokens)
        m.cacheCreationInputTokens += num(usage?.cacheCreationInputTokens)
      }
    }
  }
  return stats
}

/**
 * The `--format json` object for one file: `path`, `lines`, `decoded`, `unknown`, `failed` (numbers),
 * `kinds`, `tools`, then the details.
 *
 * @since 0.1.0
 * @category formatting
 */
export const toJson = (stats: FileStats): Record<string, unknown> => ({
  path: stats.path,
  lines: stats.lines,
  decoded: stats.decoded,
  unknown: stats.unknown,
  failed: stats.failed,
  kinds: stats.kinds,
  tools: stats.tools,
  errorResults: stats.errorResults,
  unknownTypes: stats.unknownTypes,
  failures: stats.failures,
  models: stats.models,
  results: stats.results
})

const pad = (s: string, n: number) => s.padEnd(n)

/**
 * The human-readable report of one file.
 *
 * @since 0.1.0
 * @category formatting
 */
export const toText = (stats: FileStats): string => {
  const out: Array<string> = [stats.path]
  out.push(
    `  lines ${stats.lines}  decoded ${stats.decoded}  unknown ${stats.unknown}  failed ${stats.failed}`
  )
  const kinds = Object.entries(stats.kinds).sort((a, b) => b[1] - a[1])
  if (kinds.length > 0) out.push("  kinds:  " + kinds.map(([k, n]) => `${k} ${n}`).join(", "))
  const tools = Object.entries(stats.tools).sort((a, b) => b[1].calls - a[1].calls)
  if (tools.length > 0) {
    out.push("  tools:")
    for (const [name, t] of tools) {
      out.push(
        `    ${pad(name, 16)} ${t.calls} call${t.calls === 1 ? "" : "s"}` +
          (t.errors > 0 ? `, ${t.errors} error${t.errors === 1 ? "" : "s"}` : "") +
          (t.durationMs > 0 ? `, ${(t.durationMs / 1000).toFixed(1)}s` : "")
      )
    }
  }
  for (const [model, m] of Object.entries(stats.models)) {
    out.push(
      `  model ${model}: $${m.costUsd.toFixed(4)}, ${m.inputTokens} in / ${m.outputTokens} out tokens` +
        ` (cache ${m.cacheReadInputTokens} read, ${m.cacheCreationInputTokens} written)`
    )
  }
  for (const r of stats.results) {
    out.push(
      `  result ${r.subtype}${r.isError ? " (is_error)" : ""}: ${r.turns ?? "?"} turns, ` +
        `${r.durationMs === null ? "?" : (r.durationMs / 1000).toFixed(1) + "s"}, ` +
        `${r.costUsd === null ? "?" : "$" + r.costUsd.toFixed(4)}`
    )
  }
  const unknown = Object.entries(stats.unknownTypes)
  if (unknown.length > 0) out.push("  unknown types: " + unknown.map(([k, n]) => `${k} ${n}`).join(", "))
  for (const f of stats.failures) out.push(`  line ${f.line} failed: ${f.reason}`)
  return out.join("\n") + "\n"
}
