/**
 * The bin and the filters on session transcripts: `view --filter`, `stats` on a transcript and on a directory
 * tree, and `Item.select` over transcript messages give the counts taken here from the raw JSON alone.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import * as TranscriptMessages from "../../src/transcript/Messages.ts"
import * as Run from "../cli/support/Run.ts"
import { jsonlFiles, rawEntries, realConfigDirs, realScenarios, transcriptCorpusDir, transcriptCorpusFiles } from "./support.ts"

const blocks = (entries: ReadonlyArray<any>, type: string) =>
  entries.filter((e) => e.type === type).flatMap((e) =>
    typeof e.message.content === "string" ? [{ type: "text", text: e.message.content }] : e.message.content
  )

const failedResults = (entries: ReadonlyArray<any>) =>
  blocks(entries, "user").filter((b) => b.type === "tool_result" && b.is_error === true)

// The calls of tools `named` whose result is an error.
const failedCalls = (entries: ReadonlyArray<any>, named: (name: string) => boolean) => {
  const failed = new Set(failedResults(entries).map((b) => b.tool_use_id))
  return blocks(entries, "assistant").filter((b) => b.type === "tool_use" && named(b.name) && failed.has(b.id)).length
}

// Each filter with its count straight from the raw JSON.
const cases: ReadonlyArray<{ readonly filter: string; readonly count: (entries: ReadonlyArray<any>) => number }> = [
  { filter: "tool:Bash", count: (es) => blocks(es, "assistant").filter((b) => b.type === "tool_use" && b.name === "Bash").length },
  { filter: "tool", count: (es) => blocks(es, "assistant").filter((b) => b.type === "tool_use").length },
  { filter: "result", count: (es) => blocks(es, "user").filter((b) => b.type === "tool_result").length },
  // The failed results and the calls they answer.
  { filter: "error", count: (es) => failedResults(es).length + failedCalls(es, () => true) },
  { filter: "tool:Bash & error", count: (es) => failedCalls(es, (name) => name === "Bash") },
  {
    filter: "text & main & !type:user",
    count: (es) => blocks(es.filter((e) => e.isSidechain !== true), "assistant").filter((b) => b.type === "text").length
  },
  { filter: "subagent & tool", count: (es) => blocks(es.filter((e) => e.isSidechain === true), "assistant").filter((b) => b.type === "tool_use").length }
]

// Entry types the library knows, written out here: the unknown count of stats is what is not among them.
const knownTypes = new Set([
  "user", "assistant", "attachment", "summary", "file-history-snapshot", "queue-operation", "last-prompt",
  "custom-title", "ai-title", "tag", "derived-from", "cost-state", "tools-used", "atis-latch",
  "api-request-shape", "api-request-blob", "api-request", "progress", "relocated", "content-replacement", "mode",
  "permission-mode", "pr-link", "worktree-state", "agent-name", "agent-color", "agent-setting", "frame-link", "memory-mode",
  "file-history-delta", "repl-mode", "bridge-session", "continued-in", "ended-by-model", "resume-head-vouch",
  "api-request-resumed", "session-owner", "hybrid-organization", "isolation-latch", "dev-mods", "history-suppression",
  "artifact-comment-monitor", "artifact-autoreact-ledger", "attribution-snapshot", "fork-context-ref", "observer-ref",
  "host-row", "data-flow-records", "data-flow-incomplete", "agent_metadata"
])
const knownSystem = new Set(["compact_boundary", "api_error", "local_command", "informational", "turn_duration",
  "stop_hook_summary", "microcompact_boundary", "away_summary", "model_fallback", "model_refusal_fallback",
  "model_refusal_no_fallback", "model_consent_fallback", "permission_retry", "bridge_status", "cloud_session_status",
  "scheduled_task_fire", "memory_saved", "agents_killed", "file_snapshot", "rewind_stand_in"])
const kindOf = (e: any) => e.subtype === undefined || typeof e.subtype !== "string" ? e.type : `${e.type}/${e.subtype}`
// A system entry without a subtype is an older CLI's note.
const isKnown = (e: any) => e.type === "system" ? e.subtype === undefined || knownSystem.has(e.subtype) : knownTypes.has(e.type)

// List prices (USD per million input, output and cache-read tokens; cache reads a tenth of input unless
// given) of the models in these transcripts; others have none.
const listPrices: Record<string, readonly [number, number, number?]> = {
  "claude-opus-4-6": [5, 25],
  "claude-opus-5-5": [4, 20, 0.2],
  "claude-opus-4-20250514": [15, 75],
  "claude-opus-4-1-20250805": [15, 75],
  "claude-sonnet-4-20250514": [3, 15],
  "claude-opus-4-5-20251101": [5, 25],
  "claude-sonnet-4-5-20250929": [3, 15]
}
const round = (usd: number) => Math.round(usd * 1e9) / 1e9

// What stats must say of one transcript, from the raw JSON.
const expected = (entries: ReadonlyArray<any>) => {
  const kinds: Record<string, number> = {}
  for (const e of entries) kinds[kindOf(e)] = (kinds[kindOf(e)] ?? 0) + 1
  const tools: Record<string, number> = {}
  for (const b of blocks(entries, "assistant")) if (b.type === "tool_use") tools[b.name] = (tools[b.name] ?? 0) + 1
  // Tokens: each API message once (the CLI writes one line per content block, all with the message's usage).
  const seen = new Map<string, any>()
  for (const e of entries) if (e.type === "assistant") seen.set(`${e.sessionId}/${e.message.id}`, e.message)
  const models: Record<string, { inputTokens: number; outputTokens: number; costUsd: number | null }> = {}
  for (const m of seen.values()) {
    const price = listPrices[m.model]
    const into = models[m.model] ??= { inputTokens: 0, outputTokens: 0, costUsd: price === undefined ? null : 0 }
    into.inputTokens += m.usage.input_tokens
    into.outputTokens += m.usage.output_tokens
    if (price !== undefined) {
      into.costUsd! += (m.usage.input_tokens * price[0] + m.usage.output_tokens * price[1] +
        (m.usage.cache_creation_input_tokens ?? 0) * price[0] * 1.25 + (m.usage.cache_read_input_tokens ?? 0) * (price[2] ?? price[0] * 0.1)) / 1e6
    }
  }
  for (const m of Object.values(models)) if (m.costUsd !== null) m.costUsd = round(m.costUsd)
  return { lines: entries.length, unknown: entries.filter((e) => !isKnown(e)).length, kinds, tools, models }
}

const actual = (stats: any) => ({
  lines: stats.decoded,
  unknown: stats.unknown,
  kinds: stats.kinds,
  tools: Object.fromEntries(Object.entries(stats.tools).map(([name, t]: [string, any]) => [name, t.calls])),
  models: Object.fromEntries(
    Object.entries(stats.models).map((
      [name, m]: [string, any]
    ) => [name, { inputTokens: m.inputTokens, outputTokens: m.outputTokens, costUsd: m.costUsd === null ? null : round(m.costUsd) }])
  )
})

const viewCount = (file: string, filter: string) => {
  const out = Run.cli(["view", "--format", "jsonl", "--filter", filter, file])
  assert.strictEqual(out.status, 0, out.stderr)
  return out.stdout.split("\n").filter((l) => l !== "").length
}

const selectCount = (file: string, filter: string) =>
  Effect.gen(function*() {
    const parsed = yield* Filter.parse(filter)
    const items = yield* Stream.make(new Uint8Array(fs.readFileSync(file))).pipe(
      TranscriptDecode.entries(),
      TranscriptMessages.messages(),
      Item.select(parsed),
      Stream.runCollect
    )
    return items.length
  })

// Checks every file of a directory tree and the directory itself against the raw JSON.
const checkTree = (dir: string) =>
  Effect.gen(function*() {
    const files = jsonlFiles(dir)
    assert.isAbove(files.length, 0)
    const stats = Run.cli(["stats", "--format", "json", dir])
    assert.strictEqual(stats.status, 0, stats.stderr)
    const report = JSON.parse(stats.stdout)
    assert.deepStrictEqual(report.files.map((f: any) => f.path), files)
    const all: Array<any> = []
    for (const [i, file] of files.entries()) {
      const entries = rawEntries(file)
      all.push(...entries)
      assert.deepStrictEqual(actual(report.files[i]), expected(entries), file)
      for (const c of cases) {
        assert.strictEqual(yield* selectCount(file, c.filter), c.count(entries), `${c.filter}: ${file}`)
      }
    }
    if (files.length > 1) assert.deepStrictEqual(actual(report.total), expected(all))
    for (const c of cases) assert.strictEqual(viewCount(dir, c.filter), c.count(all), `view ${c.filter}: ${dir}`)
  })

describe("transcripts in the bin and the filters", () => {
  it.effect("the corpus directory", () => checkTree(transcriptCorpusDir))

  it.effect("view --filter on one transcript", () =>
    Effect.sync(() => {
      // The transcripts with tool calls, and one with no message at all.
      const withTools = transcriptCorpusFiles.filter((file) => cases.find((c) => c.filter === "tool")!.count(rawEntries(file)) > 0)
      const summaryOnly = transcriptCorpusFiles.filter((file) => rawEntries(file).every((e) => e.type === "summary"))
      assert.isAbove(withTools.length, 1)
      assert.strictEqual(summaryOnly.length, 1)
      for (const file of [...withTools.slice(0, 2), ...summaryOnly]) {
        for (const c of cases) assert.strictEqual(viewCount(file, c.filter), c.count(rawEntries(file)), `${c.filter}: ${file}`)
      }
    }), 180_000)

  it.live("projects directories the real CLI wrote", () =>
    Effect.gen(function*() {
      const dirs = yield* realConfigDirs(realScenarios)
      for (const dir of dirs) yield* checkTree(path.join(dir, "projects"))
      // A subagent's tool calls are `subagent` items, the main agent's are not.
      const withAgent = jsonlFiles(path.join(dirs[0], "projects"))
      assert.isAbove(cases.find((c) => c.filter === "subagent & tool")!.count(withAgent.flatMap(rawEntries)), 0)
      // A Bash call that failed, among calls that did not: `tool:Bash & error` has something to find.
      const all = dirs.flatMap((dir) => jsonlFiles(path.join(dir, "projects"))).flatMap(rawEntries)
      assert.strictEqual(cases.find((c) => c.filter === "tool:Bash & error")!.count(all), 1)
    }), 300_000)
})
