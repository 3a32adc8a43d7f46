import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { allStreamJsonFiles, corpusFiles, readLines } from "../support/Corpus.ts"
import * as Pretty from "../../src/cli/Pretty.ts"
import * as Run from "./support/Run.ts"

const cli = (...args: Array<string>) => Run.cli(args)

// Counted straight from the raw JSON, independently of the schemas.
const rawCounts = (file: string) => {
  const kinds: Record<string, number> = {}
  const tools: Record<string, number> = {}
  const errors: Record<string, number> = {}
  const names = new Map<string, string>()
  // Per session: its last result's modelUsage (running totals of the session), or else its assistant
  // messages' usage, once per id.
  const resultModels = new Map<string, Record<string, any>>()
  const assistant = new Map<string, Map<string, any>>()
  const lines = readLines(file)
  for (const { text } of lines) {
    const json = JSON.parse(text)
    const kind = typeof json.subtype === "string" ? `${json.type}/${json.subtype}` : json.type
    kinds[kind] = (kinds[kind] ?? 0) + 1
    const content = Array.isArray(json.message?.content) ? json.message.content : []
    for (const b of json.type === "assistant" ? content : []) {
      if (b.type !== "tool_use") continue
      names.set(b.id, b.name)
      tools[b.name] = (tools[b.name] ?? 0) + 1
    }
    for (const b of json.type === "user" ? content : []) {
      const name = names.get(b.tool_use_id) ?? "(unknown tool)"
      if (b.type === "tool_result" && b.is_error === true) errors[name] = (errors[name] ?? 0) + 1
    }
    const session = json.session_id ?? ""
    if (json.type === "assistant") {
      if (!assistant.has(session)) assistant.set(session, new Map())
      assistant.get(session)!.set(json.message.id, json.message)
    }
    if (json.type === "result" && Object.keys(json.modelUsage ?? {}).length > 0) resultModels.set(session, json.modelUsage)
  }
  const cost: Record<string, number> = {}
  const resultTokens: Record<string, { input: number; output: number }> = {}
  for (const models of resultModels.values()) {
    for (const [model, usage] of Object.entries<any>(models)) {
      cost[model] = (cost[model] ?? 0) + usage.costUSD
      const t = resultTokens[model] ??= { input: 0, output: 0 }
      t.input += usage.inputTokens
      t.output += usage.outputTokens
    }
  }
  const outputTokens: Record<string, number> = {}
  for (const [session, messages] of assistant) {
    if (resultModels.has(session)) continue
    for (const m of messages.values()) outputTokens[m.model] = (outputTokens[m.model] ?? 0) + m.usage.output_tokens
  }
  const sources: Record<string, string> = {}
  for (const model of Object.keys(cost)) sources[model] = "result"
  for (const model of Object.keys(outputTokens)) sources[model] = sources[model] === undefined ? "assistant" : "mixed"
  return { lines: lines.at(-1)?.line ?? 0, nonBlank: lines.length, kinds, tools, errors, cost, resultTokens, outputTokens, sources }
}

const pick = <A>(record: Record<string, A>, f: (a: A) => number) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]).filter(([, n]) => n !== 0))

describe("stats", () => {
  it("--format json over the whole corpus and fixtures, as a user runs it", () => {
    const run = cli("stats", "--format", "json", ...allStreamJsonFiles)
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const report = JSON.parse(run.stdout) as { files: Array<any> }
    expect(report.files.map((f) => f.path)).toEqual(allStreamJsonFiles)
    for (const file of report.files) {
      const raw = rawCounts(file.path)
      expect(file.lines).toBe(raw.lines)
      expect(file.decoded).toBe(raw.nonBlank)
      expect(file.blank).toBe(raw.lines - raw.nonBlank)
      expect(file.failed).toBe(0)
      expect(typeof file.unknown).toBe("number")
      expect(file.kinds).toEqual(raw.kinds)
      expect(pick<any>(file.tools, (t) => t.calls)).toEqual(raw.tools)
      expect(pick<any>(file.tools, (t) => t.errors)).toEqual(raw.errors)
      for (const [model, usd] of Object.entries(raw.cost)) {
        expect(file.models[model].costUsd).toBeCloseTo(usd, 10)
        if (file.models[model].source !== "result") continue
        expect(file.models[model].inputTokens).toBe(raw.resultTokens[model]!.input)
        expect(file.models[model].outputTokens).toBe(raw.resultTokens[model]!.output)
      }
      expect(pick<any>(file.models, (m) => m.source === "assistant" ? m.outputTokens : 0))
        .toEqual(pick(raw.outputTokens, (n) => n))
      expect(Object.fromEntries(Object.entries<any>(file.models).map(([k, m]) => [k, m.source]))).toEqual(raw.sources)
    }
  })

  it("several files: their total, in json and in the report", () => {
    const files = corpusFiles.slice(0, 4)
    const json = JSON.parse(cli("stats", "--format", "json", ...files).stdout)
    expect(json.total.lines).toBe(files.reduce((n, f) => n + rawCounts(f).lines, 0))
    expect(json.total.errorResults).toBe(json.files.reduce((n: number, f: any) => n + f.errorResults, 0))
    expect(json.total.results.length).toBe(json.files.reduce((n: number, f: any) => n + f.results.length, 0))
    expect(cli("stats", ...files).stdout).toContain("\nTotal of 4 files\n  lines ")
  })

  describe("a session counts once, with its last result's figures", () => {
    const report = (file: string) => JSON.parse(cli("stats", "--format", "json", file).stdout).files[0]
    const recorded = (name: string) => path.join(Run.root, "fixtures", "recorded", name)
    // The result lines of a recording, from its raw JSON (its timings change with each recording).
    const resultsOf = (name: string): Array<{ readonly num_turns: number; readonly duration_ms: number }> =>
      readLines(recorded(name)).map((l) => JSON.parse(l.text)).filter((json) => json.type === "result")
    const runCosts = (r: any) => r.results.map((x: any) => x.costUsd)

    it("a multi-turn capture: per model from the last result, cost per run", () => {
      const file = corpusFiles.find((f) => f.endsWith("foksa__open-claude-agent-sdk__tests__snapshots__multi-turn.jsonl"))!
      const r = report(file)
      expect(r.models["claude-haiku-4-5-20251001"]).toMatchObject({ source: "result", inputTokens: 155, outputTokens: 73 })
      expect(r.models["claude-haiku-4-5-20251001"].costUsd).toBeCloseTo(0.00052, 12)
      expect(r.models["claude-sonnet-4-5-20250929"]).toMatchObject({ source: "result", inputTokens: 6, outputTokens: 11 })
      expect(r.models["claude-sonnet-4-5-20250929"].costUsd).toBeCloseTo(0.0143658, 12)
      // The second run cost the growth of the session's total: 0.0148858 - 0.0076933.
      expect(runCosts(r)[0]).toBeCloseTo(0.0076933, 12)
      expect(runCosts(r)[1]).toBeCloseTo(0.0071925, 12)
      expect(r.results.map((x: any) => x.turns)).toEqual([1, 1])
      expect(cli("stats", file).stdout).toContain("  models   claude-haiku-4-5-20251001: $0.0005 · 155 in / 73 out tokens")
    })

    it("one stream-json session with three results", () => {
      const r = report(recorded("stream_json_session.jsonl"))
      expect(r.models["claude-opus-5-5"]).toMatchObject({ inputTokens: 300, outputTokens: 60 })
      expect(r.models["claude-opus-5-5"].costUsd).toBeCloseTo(0.0024, 12)
      for (const cost of runCosts(r)) expect(cost).toBeCloseTo(0.0008, 12)
      expect(r.results.map((x: any) => x.totalCostUsd)).toEqual([0.0008, 0.0016, 0.0024000000000000002])
      // Turns and wall time are each run's own (as the recording's result lines give them): they add up.
      expect(r.results.map((x: any) => [x.turns, x.durationMs])).toEqual(resultsOf("stream_json_session.jsonl").map((x) => [x.num_turns, x.duration_ms]))
      expect(r.results.map((x: any) => x.turns)).toEqual([1, 1, 1])
    })

    it("a background subagent's second result adds no cost", () => {
      const r = report(recorded("subagent.jsonl"))
      expect(r.models["claude-opus-5-5"]).toMatchObject({ inputTokens: 500, outputTokens: 100 })
      expect(r.models["claude-opus-5-5"].costUsd).toBeCloseTo(0.004, 12)
      expect(runCosts(r)).toEqual([0.004, 0])
    })

    it("totals that start over add the earlier process's last figures", () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
      const file = path.join(dir, "resumed.jsonl")
      const once = fs.readFileSync(recorded("stream_json_session.jsonl"), "utf8")
      fs.writeFileSync(file, once + once)
      const r = report(file)
      expect(r.models["claude-opus-5-5"]).toMatchObject({ inputTokens: 600, outputTokens: 120 })
      expect(r.models["claude-opus-5-5"].costUsd).toBeCloseTo(0.0048, 12)
      expect(runCosts(r)).toHaveLength(6)
      for (const cost of runCosts(r)) expect(cost).toBeCloseTo(0.0008, 12)
      fs.rmSync(dir, { recursive: true })
    })

    it("different sessions add up, in a file and over files", () => {
      const files = [recorded("stream_json_session.jsonl"), recorded("subagent.jsonl")]
      const { total } = JSON.parse(cli("stats", "--format", "json", ...files).stdout)
      expect(total.models["claude-opus-5-5"]).toMatchObject({ inputTokens: 800, outputTokens: 160 })
      expect(total.models["claude-opus-5-5"].costUsd).toBeCloseTo(0.0064, 12)
      const ms = ["stream_json_session.jsonl", "subagent.jsonl"].flatMap(resultsOf).reduce((n, x) => n + x.duration_ms, 0)
      expect(cli("stats", ...files).stdout).toContain(`\n  results  5 runs (success 5): 6 turns, ${Pretty.seconds(ms)}, $0.0064\n`)
    })
  })

  it("tool durations from timestamps when the CLI reports none", () => {
    const file = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")
    const messages = readLines(file).map((l) => JSON.parse(l.text))
    const at = (type: string, has: (b: any) => boolean) =>
      Date.parse(messages.find((m) => m.type === type && m.message.content.some(has)).timestamp)
    const call = at("assistant", (b) => b.type === "tool_use" && b.name === "Read")
    const id = messages.flatMap((m) => m.message?.content ?? []).find((b: any) => b.name === "Read").id
    const result = at("user", (b) => b.tool_use_id === id)
    const [report] = JSON.parse(cli("stats", "--format", "json", file).stdout).files
    expect(report.tools.Read.durationMs).toBe(result - call)
    expect(report.tools.Write).toMatchObject({ calls: 1, errors: 1, denied: 1 })
  })

  it("lists the message types, subtypes and blocks it does not know", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
    const file = path.join(dir, "future.jsonl")
    const lines = fs.readFileSync(path.join(Run.root, "fixtures", "recorded", "simple_hello.jsonl"), "utf8").trim().split("\n")
    const assistant = JSON.parse(lines.find((l) => l.includes("\"type\":\"assistant\""))!)
    assistant.message.content.push({ type: "hologram", frames: 3 })
    fs.writeFileSync(file, [
      ...lines,
      JSON.stringify(assistant),
      JSON.stringify({ type: "telepathy", session_id: "s" }),
      JSON.stringify({ type: "system", subtype: "weather_report", session_id: "s" })
    ].join("\n") + "\n")
    const run = cli("stats", "--format", "json", file)
    expect(run.status).toBe(0)
    const [report] = JSON.parse(run.stdout).files
    expect(report.unknown).toBe(2)
    expect(report.unknownTypes).toEqual({ "telepathy": 1, "system/weather_report": 1, "assistant block hologram": 1 })
    expect(cli("stats", file).stdout).toContain("  unknown  assistant block hologram 1, telepathy 1, system/weather_report 1\n")
    fs.rmSync(dir, { recursive: true })
  })

  it("pretty format names every file", () => {
    const run = cli("stats", ...corpusFiles.slice(0, 3))
    expect(run.status).toBe(0)
    for (const file of corpusFiles.slice(0, 3)) expect(run.stdout).toContain(file)
  })

  it("exits 1 and names the line when a line fails", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
    const file = path.join(dir, "broken.jsonl")
    fs.writeFileSync(file, fs.readFileSync(corpusFiles[0]!, "utf8").split("\n").slice(0, 2).join("\n") + "\nnot json\n")
    const run = cli("stats", "--format", "json", file)
    expect(run.status).toBe(1)
    const [report] = JSON.parse(run.stdout).files
    expect(report).toMatchObject({ lines: 3, decoded: 2, failed: 1 })
    expect(report.failures[0].line).toBe(3)
    fs.rmSync(dir, { recursive: true })
  })

  it("per model from assistant messages when no result covers them", () => {
    const file = corpusFiles.find((f) => f.includes("ArturoKuang__"))!
    const raw = rawCounts(file)
    expect(raw.cost).toEqual({})
    const [report] = JSON.parse(cli("stats", "--format", "json", file).stdout).files
    expect(Object.keys(report.models).sort()).toEqual(["claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"])
    for (const [model, m] of Object.entries<any>(report.models)) {
      expect(m).toMatchObject({ source: "assistant", costUsd: null, outputTokens: raw.outputTokens[model] })
    }
    // One line per content block, the same usage on each: counted once.
    const lines = readLines(file).map((l) => JSON.parse(l.text)).filter((m) => m.type === "assistant")
    expect(new Set(lines.map((m) => m.message.id)).size).toBeLessThan(lines.length)
    expect(cli("stats", file).stdout).toMatch(
      /\n {2}models {3}claude-sonnet-4-5-20250929: 78 in \/ 2034 out tokens · .* \(from the assistant messages: no result line, cost unknown\)\n/
    )
  })

  it("pretty: tool results with errors, with the denied ones", () => {
    const file = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")
    expect(cli("stats", file).stdout).toContain("\n  errors   1 tool result with is_error (1 denied)\n")
  })

  it("blank lines are counted; multi-line reasons stay under their heading", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
    const file = path.join(dir, "gaps.jsonl")
    const good = fs.readFileSync(path.join(Run.root, "fixtures", "recorded", "simple_hello.jsonl"), "utf8").trim().split("\n")
    // Line 2 blank, line 4 a known type with missing fields (a schema error over two lines), then blank lines.
    fs.writeFileSync(file, [good[0], "", good[1], "{\"type\":\"result\",\"subtype\":\"success\"}", good[2], "", ""].join("\n"))
    const run = cli("stats", "--format", "json", file)
    expect(run.status).toBe(1)
    const [report] = JSON.parse(run.stdout).files
    expect(report).toMatchObject({ lines: 5, blank: 1, decoded: 3, failed: 1 })
    expect(report.failures.map((f: any) => f.line)).toEqual([4])
    const pretty = cli("stats", file).stdout
    expect(pretty).toContain("  lines 5 · decoded 3 · unknown 0 · failed 1 · blank 1\n")
    const failure = pretty.slice(pretty.indexOf("  line 4 failed: SchemaMismatch")).trimEnd().split("\n")
    expect(failure.length).toBeGreaterThan(1)
    for (const line of failure.slice(1)) expect(line).toMatch(/^ {6,}\S/)
    fs.rmSync(dir, { recursive: true })
  })

  it("- reads standard input, named as such", () => {
    const file = corpusFiles[0]!
    const fromFile = JSON.parse(cli("stats", "--format", "json", file).stdout).files[0]
    const fromPipe = JSON.parse(Run.cli(["stats", "--format", "json", "-"], { input: fs.readFileSync(file, "utf8") }).stdout).files[0]
    expect(fromPipe).toEqual({ ...fromFile, path: "standard input" })
    expect(Run.cli(["stats", "-"], { input: "" }).stdout).toBe("standard input\n  lines 0 · decoded 0 · unknown 0 · failed 0\n")
  })

  it("--help says what each format holds", () => {
    expect(cli("stats", "--help").stdout).toMatch(/--format choice +pretty: a report per file .*json: \{"files"/)
  })

  it("an unreadable file: a clear message, exit 3", () => {
    const run = cli("stats", "/nonexistent/file.jsonl")
    expect(run.status).toBe(3)
    expect(run.stderr).toContain("Cannot read /nonexistent/file.jsonl")
    expect(run.stderr).not.toMatch(/\n\s+at /)
  })
})
