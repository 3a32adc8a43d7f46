import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { allStreamJsonFiles, corpusFiles, readLines } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

const cli = (...args: Array<string>) => Run.cli(args)

// Counted straight from the raw JSON, independently of the schemas.
const rawCounts = (file: string) => {
  const kinds: Record<string, number> = {}
  const tools: Record<string, number> = {}
  let lines = 0
  for (const { text } of readLines(file)) {
    lines++
    const json = JSON.parse(text)
    const kind = typeof json.subtype === "string" ? `${json.type}/${json.subtype}` : json.type
    kinds[kind] = (kinds[kind] ?? 0) + 1
    if (json.type === "assistant") {
      for (const b of json.message?.content ?? []) if (b.type === "tool_use") tools[b.name] = (tools[b.name] ?? 0) + 1
    }
  }
  return { lines, kinds, tools }
}

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
      expect(file.decoded).toBe(raw.lines)
      expect(file.failed).toBe(0)
      expect(typeof file.unknown).toBe("number")
      expect(file.kinds).toEqual(raw.kinds)
      expect(Object.fromEntries(Object.entries<any>(file.tools).filter(([, t]) => t.calls > 0).map(([n, t]) => [n, t.calls])))
        .toEqual(raw.tools)
    }
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

  it("an unreadable file is a clear message with exit code 3, no stack trace", () => {
    const run = cli("stats", "/nonexistent/file.jsonl")
    expect(run.status).toBe(3)
    expect(run.stderr).toContain("Cannot read /nonexistent/file.jsonl")
    expect(run.stderr).not.toMatch(/\n\s+at /)
  })
})
