/**
 * `stats` over a directory whose files hold bad lines: the total names the file of each failed line (line
 * numbers alone repeat across files), each file's block keeps its bare line numbers under its header.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { corpusFiles, readLines } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

// Two copies of a stream-json capture, each with its lines 2 and 3 cut short.
const good = corpusFiles.find((f) => readLines(f).length > 4)!

describe("stats on a directory with bad lines", () => {
  let dir = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-dir-"))
    const lines = readLines(good).map((l) => l.text)
    const broken = lines.map((l, i) => i === 1 || i === 2 ? l.slice(0, 15) : l).join("\n") + "\n"
    fs.writeFileSync(path.join(dir, "a.jsonl"), broken)
    fs.writeFileSync(path.join(dir, "b.jsonl"), broken)
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("pretty: the total names the file of each failed line", () => {
    const run = Run.cli(["stats", dir])
    assert.strictEqual(run.status, 1)
    const [a, b, total] = run.stdout.split("\n\n")
    const failed = (block: string | undefined) => block!.split("\n").filter((l) => l.includes("failed: ")).map((l) => l.split(" failed: ")[0])
    assert.deepStrictEqual(failed(a), ["  line 2", "  line 3"])
    assert.deepStrictEqual(failed(b), ["  line 2", "  line 3"])
    assert.isTrue(total!.startsWith("Total of 2 files\n"))
    assert.deepStrictEqual(failed(total), [
      `  ${dir}/a.jsonl: line 2`,
      `  ${dir}/a.jsonl: line 3`,
      `  ${dir}/b.jsonl: line 2`,
      `  ${dir}/b.jsonl: line 3`
    ])
  })

  it("json: the total's failures carry their file", () => {
    const run = Run.cli(["stats", "--format", "json", dir])
    assert.strictEqual(run.status, 1)
    const report = JSON.parse(run.stdout)
    const where = (failures: ReadonlyArray<any>) => failures.map((f) => [f.file, f.line])
    assert.deepStrictEqual(where(report.files[0].failures), [[undefined, 2], [undefined, 3]])
    assert.deepStrictEqual(where(report.total.failures), [
      [`${dir}/a.jsonl`, 2],
      [`${dir}/a.jsonl`, 3],
      [`${dir}/b.jsonl`, 2],
      [`${dir}/b.jsonl`, 3]
    ])
  })
})
