/**
 * `view` over a directory whose files hold bad lines: each report on standard error names its file, since the
 * files' headers are on standard output (or, for jsonl and json, nowhere).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { transcriptFiles } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

// A transcript of the corpus with more than five lines.
const good = transcriptFiles.find((f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l !== "").length > 5)!

describe("view on a directory with bad lines", () => {
  let dir = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-view-bad-"))
    fs.writeFileSync(path.join(dir, "a.jsonl"), "garbage\n")
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
    fs.writeFileSync(path.join(held, "a.jsonl"), "garbage\n".repeat(5))
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
