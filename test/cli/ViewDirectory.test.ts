/**
 * `view` over a directory whose files hold bad lines: each report on standard error names its file, since the
 * files' headers are on standard output (or, for jsonl and json, nowhere).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Display from "../../src/cli/Display.ts"
import * as Style from "../../src/cli/Style.ts"
import { transcriptFiles, transcriptsDir } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

// A transcript of the corpus with more than five lines.
const good = transcriptFiles.find((f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l !== "").length > 5)!

describe("view on a directory with bad lines", () => {
  let dir = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-view-bad-"))
    // A bad line before the good ones (a file in which nothing decodes is reported once: see below).
    fs.writeFileSync(path.join(dir, "a.jsonl"), "garbage\n" + fs.readFileSync(good, "utf8"))
    fs.copyFileSync(good, path.join(dir, "b.jsonl"))
    const lines = fs.readFileSync(good, "utf8").split("\n").filter((l) => l !== "")
    lines[4] = lines[4]!.slice(0, 20)
    fs.writeFileSync(path.join(dir, "c.jsonl"), lines.join("\n") + "\n")
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  for (const format of ["pretty", "jsonl", "json"]) {
    it(`names the file of each bad line: ${format}`, () => {
      const out = Run.cli(["view", "--format", format, "--filter", "tool:Bash & error", dir])
      const reports = out.stderr.split("\n").filter((l) => l.startsWith("✗"))
      assert.deepStrictEqual(reports.map((l) => l.split(": not ")[0]), [
        `✗ ${dir}/a.jsonl: line 1`,
        `✗ ${dir}/c.jsonl: line 5`
      ])
    })
  }

  it("names the file of the bad lines held back", () => {
    const held = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-view-held-"))
    fs.writeFileSync(path.join(held, "a.jsonl"), "garbage\n".repeat(5) + fs.readFileSync(good, "utf8"))
    fs.copyFileSync(good, path.join(held, "b.jsonl"))
    const out = Run.cli(["view", "--format", "jsonl", held])
    fs.rmSync(held, { recursive: true })
    const reports = out.stderr.split("\n").filter((l) => l.startsWith("✗"))
    assert.deepStrictEqual(reports.map((l) => l.split(": not ")[0]), [
      `✗ ${held}/a.jsonl: line 1`,
      `✗ ${held}/a.jsonl: line 2`,
      `✗ ${held}/a.jsonl: line 3`,
      `✗ ${held}/a.jsonl: … and 2 more lines that did not decode`
    ])
  })
})

describe("a directory holding a file in which nothing decodes", () => {
  let dir = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-undecoded-"))
    fs.writeFileSync(path.join(dir, "a.jsonl"), "garbage\n".repeat(5))
    fs.copyFileSync(good, path.join(dir, "b.jsonl"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const once = () => `${dir}/a.jsonl is neither stream-json nor a session transcript: no line decoded`

  for (const format of ["pretty", "jsonl", "json"]) {
    it(`view names it once and exits 3, the other file shown: ${format}`, () => {
      const out = Run.cli(["view", "--format", format, dir])
      assert.strictEqual(out.status, 3)
      assert.deepStrictEqual(out.stderr.split("\n").filter((l) => l.includes("a.jsonl")), [`  ${once()}`])
      assert.notInclude(out.stderr, "not a stream-json message")
      if (format === "jsonl") {
        const lines = out.stdout.split("\n").filter((l) => l !== "")
        assert.isAbove(lines.length, 0)
        for (const line of lines) assert.include(fs.readFileSync(good, "utf8"), line)
      }
      if (format === "json") assert.isAbove(JSON.parse(out.stdout).files[1].lines, 0)
    })
  }

  it("stats names it once and exits 3, the other file counted", () => {
    const out = Run.cli(["stats", "--format", "json", dir])
    assert.strictEqual(out.status, 3)
    assert.deepStrictEqual(out.stderr.split("\n").filter((l) => l.includes("a.jsonl")), [`  ${once()}`])
    assert.isAbove(JSON.parse(out.stdout).files[1].decoded, 0)
  })

  it("--help says so", () => {
    const help = Run.cli(["view", "--help"]).stdout.replace(/\s+/g, " ")
    assert.include(help, "3 input error: unreadable file, or neither stream-json nor a session transcript: no line decodes")
    assert.include(help, "a file of several or of a directory too, named once after the others are shown or counted")
  })
})

// Output tokens per model of a transcript's assistant messages, read with JSON.parse alone: each API message
// once (the CLI writes a line per content block, with the same usage).
const outputTokens = (file: string): Record<string, number> => {
  const usage = new Map<string, { readonly model: string; readonly tokens: number }>()
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue
    const e = JSON.parse(line)
    if (e.type === "assistant" && e.message?.usage !== undefined) {
      usage.set(`${e.sessionId}/${e.message.id}`, { model: e.message.model, tokens: e.message.usage.output_tokens })
    }
  }
  const out: Record<string, number> = {}
  for (const { model, tokens } of usage.values()) out[model] = (out[model] ?? 0) + tokens
  return out
}

describe("view --format json on transcripts", () => {
  const json = (args: ReadonlyArray<string>) => {
    const out = Run.cli(["view", "--format", "json", ...args])
    return JSON.parse(out.stdout)
  }
  const outputs = (models: Record<string, { readonly outputTokens: number }>) =>
    Object.fromEntries(Object.entries(models).map(([model, m]) => [model, m.outputTokens]))

  it("a transcript: its tokens per model, no result figures", () => {
    const summary = json([good])
    assert.deepStrictEqual(outputs(summary.modelUsage), outputTokens(good))
    assert.isAbove(Object.keys(summary.modelUsage).length, 0)
    for (const field of ["completed", "success", "runs", "usage", "totalCostUsd"]) assert.notProperty(summary, field)
    assert.isAbove(summary.messageCount, 0)
  })

  it("a directory: each file's and the total's, messageCount in the total", () => {
    const summary = json([transcriptsDir])
    const stats = JSON.parse(Run.cli(["stats", "--format", "json", transcriptsDir]).stdout)
    assert.deepStrictEqual(summary.files.map((f: any) => f.modelUsage), stats.files.map((f: any) => f.models))
    assert.deepStrictEqual(summary.total.modelUsage, stats.total.models)
    assert.strictEqual(summary.total.messageCount, summary.files.reduce((n: number, f: any) => n + f.messageCount, 0))
    assert.isAbove(summary.total.messageCount, 0)
  })
})

describe("a message copied into several files", () => {
  const rule = "a copied message counts for the first file, by path, that holds it; per-file figures of forks are " +
    "therefore their new messages only"
  const oneLine = (text: string) => text.replace(/\s+/g, " ")

  it("counts for the first file by path: a fork's figures are its new messages only", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-view-fork-"))
    // b.jsonl is a fork of a.jsonl that added no message of its own; c.jsonl sorts after both.
    fs.copyFileSync(good, path.join(dir, "a.jsonl"))
    fs.copyFileSync(good, path.join(dir, "b.jsonl"))
    const summary = JSON.parse(Run.cli(["view", "--format", "json", dir]).stdout)
    const stats = JSON.parse(Run.cli(["stats", "--format", "json", dir]).stdout)
    fs.rmSync(dir, { recursive: true })
    const outputs = (models: Record<string, { readonly outputTokens: number }>) =>
      Object.entries(models).flatMap(([model, m]) => m.outputTokens > 0 ? [[model, m.outputTokens]] : [])
    assert.deepStrictEqual(Object.fromEntries(outputs(summary.files[0].modelUsage)), outputTokens(good))
    assert.deepStrictEqual(outputs(summary.files[1].modelUsage), [])
    assert.deepStrictEqual(outputs(stats.files[1].models), [])
    assert.deepStrictEqual(Object.fromEntries(outputs(summary.total.modelUsage)), outputTokens(good))
  })

  it("is said exactly in view's and stats' --help and the README", () => {
    assert.include(oneLine(Run.cli(["view", "--help"]).stdout), rule)
    assert.include(oneLine(Run.cli(["stats", "--help"]).stdout), rule)
    assert.include(oneLine(fs.readFileSync(path.join(Run.root, "README.md"), "utf8")), rule)
  })
})

describe("view of files that interleave (--follow)", () => {
  it("a header each time the file changes, one blank line around it", () => {
    const demo = Run.records(path.join(Run.root, "fixtures", "recorded", "demo.jsonl"))
    assert.isAtLeast(demo.length, 9)
    const state = Display.initial({ format: "pretty" }, { style: Style.plain, animate: false, now: 0 })
    let out = ""
    const feed = (source: string, from: number, to: number) => {
      for (const record of demo.slice(from, to)) {
        for (const w of Display.step(state, { _tag: "Record", record, now: 0, source })[1]) if (w._tag === "Stdout") out += w.text
      }
    }
    feed("a.jsonl", 0, 3)
    feed("b.jsonl", 0, 3)
    feed("a.jsonl", 3, 9)
    for (const w of Display.finish(state)) if (w._tag === "Stdout") out += w.text
    const lines = out.split("\n")
    const headers = lines.flatMap((l, i) => l.startsWith("── ") ? [i] : [])
    assert.deepStrictEqual(headers.map((i) => lines[i]), ["── a.jsonl ──", "── b.jsonl ──", "── a.jsonl ──"])
    for (const i of headers) {
      assert.notStrictEqual(lines[i + 1], undefined)
      assert.strictEqual(lines[i + 1], "", `a blank line after ${lines[i]}`)
      assert.notStrictEqual(lines[i + 2], "", `one blank line after ${lines[i]}`)
      if (i > 0) assert.strictEqual(lines[i - 1], "", `a blank line before ${lines[i]}`)
      if (i > 1) assert.notStrictEqual(lines[i - 2], "", `one blank line before ${lines[i]}`)
    }
  })
})
