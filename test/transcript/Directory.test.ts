/**
 * The bin on a directory of sessions the real CLI wrote, forked copies among them: each file shown on its own,
 * followed all at once, counted once where a fork copied it; a subagent's transcript selected by its Task call;
 * a transcript on standard input. Every count here comes from the raw JSON (`JSON.parse`).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import * as Scenario from "../../src/testing/Scenario.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import * as Run from "../cli/support/Run.ts"
import { jsonlFiles, parallelBashScenario, rawEntries, transcriptCorpusFiles } from "./support.ts"

const blocks = (entries: ReadonlyArray<any>, type: string): Array<any> =>
  entries.filter((e) => e.type === type).flatMap((e) =>
    typeof e.message.content === "string" ? [{ type: "text", text: e.message.content }] : e.message.content
  )
const toolUses = (entries: ReadonlyArray<any>) => blocks(entries, "assistant").filter((b) => b.type === "tool_use")
const failedBash = (entries: ReadonlyArray<any>) => {
  const failed = new Set(blocks(entries, "user").filter((b) => b.type === "tool_result" && b.is_error === true).map((b) => b.tool_use_id))
  return toolUses(entries).filter((b) => b.name === "Bash" && failed.has(b.id)).length
}

// A fork as the CLI's and the SDK's make one: every line copied under a new session id and new uuids; the
// API messages (message.id, requestId) stay those of the original.
const fork = (file: string, sessionId: string, into: string) => {
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((line) => {
    const e = JSON.parse(line)
    if (typeof e.sessionId === "string") e.sessionId = sessionId
    if (typeof e.uuid === "string") e.uuid = `${sessionId}-${e.uuid}`
    if (typeof e.parentUuid === "string") e.parentUuid = `${sessionId}-${e.parentUuid}`
    return JSON.stringify(e)
  })
  fs.writeFileSync(path.join(into, `${sessionId}.jsonl`), lines.join("\n") + "\n")
}

const jsonl = (args: ReadonlyArray<string>, input?: string) => {
  const out = Run.cli(args, { input })
  assert.strictEqual(out.status, 0, out.stderr)
  return out.stdout.split("\n").filter((l) => l !== "")
}

const played = (scenario: Scenario.Scenario) =>
  Scenario.run(scenario).pipe(
    Effect.map((run) => {
      assert.strictEqual(run.exitCode, 0, run.stderr)
      return { config: path.join(run.sandbox.home, ".claude"), stdout: run.stdout }
    }),
    Effect.provide(NodeServices.layer)
  )

// A session the real CLI wrote (a failed Bash call among others) and two forks of it, in a directory of their own.
const forks = () =>
  Effect.gen(function*() {
    const { config } = yield* played(parallelBashScenario)
    const [original] = jsonlFiles(path.join(config, "projects"))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-forks-"))
    fs.copyFileSync(original!, path.join(dir, "a-original.jsonl"))
    fork(original!, "b-fork", dir)
    fork(original!, "c-fork", dir)
    return dir
  }).pipe(Effect.scoped)

describe("a directory of sessions", () => {
  let dir = ""
  let files: ReadonlyArray<string> = []
  let entries: ReadonlyArray<ReadonlyArray<any>> = []
  beforeAll(async () => {
    dir = await Effect.runPromise(forks())
    files = jsonlFiles(dir)
    entries = files.map(rawEntries)
    assert.isAbove(failedBash(entries[0]!), 0)
  }, 300_000)
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const sum = (f: (es: ReadonlyArray<any>) => number) => entries.reduce((n, es) => n + f(es), 0)

  it("view: every session's calls, each under a header naming its file", () => {
    const pretty = Run.cli(["view", "--filter", "tool:Bash & error", dir])
    assert.strictEqual(pretty.status, 0, pretty.stderr)
    const shown = pretty.stdout.split("\n")
    assert.strictEqual(shown.filter((l) => l.startsWith("● Bash(")).length, sum(failedBash))
    assert.deepStrictEqual(shown.filter((l) => l.startsWith("── ")), files.map((f) => `── ${f} ──`))
    const all = Run.cli(["view", dir]).stdout.split("\n").filter((l) => l.startsWith("● ")).length
    assert.strictEqual(all, sum((es) => toolUses(es).length))
    // Headers are for people: jsonl is the lines alone.
    assert.strictEqual(jsonl(["view", "--format", "jsonl", dir]).length, sum((es) => es.filter((e) => e.type === "user" || e.type === "assistant").length))
  })

  it("view --format json: each file with its own run, and their total", () => {
    const summary = JSON.parse(jsonl(["view", "--format", "json", "--filter", "tool", dir])[0]!)
    const lastText = (es: ReadonlyArray<any>) => blocks(es, "assistant").filter((b) => b.type === "text").at(-1)?.text
    assert.deepStrictEqual(summary.files.map((f: any) => [f.file, f.selected.tool_use, f.sessionId, f.finalText]), [
      [files[0], toolUses(entries[0]!).length, entries[0]!.find((e) => e.sessionId)!.sessionId, lastText(entries[0]!)],
      [files[1], toolUses(entries[1]!).length, "b-fork", lastText(entries[1]!)],
      [files[2], toolUses(entries[2]!).length, "c-fork", lastText(entries[2]!)]
    ])
    assert.strictEqual(summary.total.selected.tool_use, sum((es) => toolUses(es).length))
    // Lines: every line that decoded, as stats counts them; messageCount, the user and assistant entries.
    const stats = JSON.parse(jsonl(["stats", "--format", "json", dir])[0]!)
    assert.deepStrictEqual(summary.files.map((f: any) => f.lines), entries.map((es) => es.length))
    assert.deepStrictEqual(stats.files.map((f: any) => f.decoded), entries.map((es) => es.length))
    assert.deepStrictEqual(summary.files.map((f: any) => f.messageCount), entries.map((es) => es.filter((e) => e.type === "user" || e.type === "assistant").length))
    assert.strictEqual(summary.total.lines, sum((es) => es.length))
  })

  it("stats: each API message's tokens once, for the first file; tool calls as view counts them", () => {
    const stats = JSON.parse(jsonl(["stats", "--format", "json", dir])[0]!)
    const unique = new Map<string, any>()
    for (const e of entries.flat()) if (e.type === "assistant") unique.set(`${e.message.id}:${e.requestId}`, e.message.usage)
    const tokens = (s: any) => Object.values(s.models).reduce((n: number, m: any) => n + m.inputTokens + m.outputTokens, 0)
    const expected = [...unique.values()].reduce((n, u) => n + u.input_tokens + u.output_tokens, 0)
    assert.isAbove(expected, 0)
    assert.strictEqual(tokens(stats.total), expected)
    assert.deepStrictEqual(stats.files.map(tokens), [expected, 0, 0])
    const summary = JSON.parse(jsonl(["view", "--format", "json", "--filter", "tool", dir])[0]!)
    assert.deepStrictEqual(
      stats.files.map((f: any) => Object.values(f.tools).reduce((n: number, t: any) => n + t.calls, 0)),
      summary.files.map((f: any) => f.selected.tool_use)
    )
  })

  it("a transcript on standard input: the same counts as the file", () => {
    const text = fs.readFileSync(files[0]!, "utf8")
    assert.strictEqual(jsonl(["view", "--format", "jsonl", "--filter", "tool:Bash & error", "-"], text).length, failedBash(entries[0]!))
    assert.strictEqual(JSON.parse(jsonl(["stats", "--format", "json", "-"], text)[0]!).files[0].decoded, entries[0]!.length)
  })

  it.live("task:ID selects a subagent's transcript as in stream-json", () =>
    Effect.gen(function*() {
      const { config, stdout } = yield* played(Scenarios.subagent)
      const files = jsonlFiles(path.join(config, "projects"))
      const agent = files.find((f) => /subagents\/agent-[^/]*\.jsonl$/.test(f))!
      const meta = JSON.parse(fs.readFileSync(agent.replace(/\.jsonl$/, ".meta.json"), "utf8"))
      const task = toolUses(files.flatMap(rawEntries)).find((b) => b.name === "Task" || b.name === "Agent")!
      assert.strictEqual(meta.toolUseId, task.id)
      const stream = path.join(path.dirname(config), "stream.jsonl")
      fs.writeFileSync(stream, stdout)
      // Its calls and results: the same in the stream and in the transcripts, as the raw JSON counts them.
      const calls = `task:${task.id} & (tool | result)`
      const agentEntries = rawEntries(agent)
      const raw = toolUses(agentEntries).length + blocks(agentEntries, "user").filter((b) => b.type === "tool_result").length
      assert.isAbove(raw, 0)
      assert.strictEqual(jsonl(["view", "--format", "jsonl", "--filter", calls, stream]).length, raw)
      assert.strictEqual(jsonl(["view", "--format", "jsonl", "--filter", calls, path.join(config, "projects")]).length, raw)
      assert.strictEqual(jsonl(["view", "--format", "jsonl", "--filter", calls, agent]).length, raw)
      // All its items: the transcript holds the subagent's prompt too, which stream-json does not print.
      const items = agentEntries.filter((e) => e.type === "user" || e.type === "assistant").flatMap((e) =>
        typeof e.message.content === "string" ? [e.message.content] : e.message.content
      ).length
      assert.strictEqual(jsonl(["view", "--format", "jsonl", "--filter", `task:${task.id}`, path.join(config, "projects")]).length, items)
    }), 300_000)

  it("--follow follows every file at once, new ones too, until interrupted", async () => {
    const withTools = transcriptCorpusFiles.filter((f) => toolUses(rawEntries(f)).length > 0).slice(0, 2)
    assert.strictEqual(withTools.length, 2)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-follow-dir-"))
    const [first, second] = withTools.map((f, i) => {
      const into = path.join(dir, `${i}.jsonl`)
      fs.copyFileSync(f, into)
      return into
    })
    const { child, exited, printed, until } = Run.following(["view", "-f", "--format", "jsonl", "--filter", "tool", dir])
    const count = (file: string) => toolUses(rawEntries(file)).length
    try {
      await until("both files' calls", () => printed() === count(first!) + count(second!))
      // A call added to the first file while the second is followed too.
      const call = rawEntries(first!).find((e) => e.type === "assistant" && toolUses([e]).length > 0)!
      fs.appendFileSync(first!, JSON.stringify({ ...call, uuid: "appended" }) + "\n")
      await until("the appended call", () => printed() === count(first!) + count(second!))
      // A session that starts while the directory is followed.
      const third = path.join(dir, "2.jsonl")
      fs.copyFileSync(withTools[0]!, third)
      await until("the new file's calls", () => printed() === count(first!) + count(second!) + count(third))
      assert.strictEqual(child.exitCode, null)
    } finally {
      child.kill("SIGINT")
    }
    assert.strictEqual(await exited, ExitCode.Interrupted)
    fs.rmSync(dir, { recursive: true })
  }, 60_000)
})
