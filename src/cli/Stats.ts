/**
 * `stats`: the figures of {@link Stats} (what a library user gets from `effect-claude-code/transcript`) as the
 * command prints them, a report per file or one JSON object.
 *
 * @since 0.1.0
 */
import type * as Stats from "../transcript/Stats.ts"
import * as Pretty from "./Pretty.ts"
import * as Style from "./Style.ts"
import * as ToolLine from "./ToolLine.ts"

type FileStats = Stats.FileStats
type ModelStats = Stats.ModelStats
type ResultStats = Stats.ResultStats
type Failure = Stats.Failure

const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by
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
