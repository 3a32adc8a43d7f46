import { assert, describe, it } from "@effect/vitest"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as generate from "../../bench/generate.ts"
import { type LatencyResult, readers } from "../../bench/latency.ts"
import * as pool from "../../bench/pool.ts"
import * as report from "../../bench/report.ts"
import { variants } from "../../bench/variants.ts"

const withDir = async (use: (dir: string) => Promise<void> | void) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-test-"))
  try {
    await use(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("bench inputs and variants", () => {
  it("the same seed gives the same transcript", () =>
    withDir((dir) => {
      const write = (name: string, seed: number) => {
        const file = path.join(dir, name)
        const size = generate.writeTranscript(file, { seed, bytes: 100_000, partial: true })
        return { size, text: fs.readFileSync(file, "utf8") }
      }
      const [a, b, c] = [write("a", 7), write("b", 7), write("c", 8)]
      assert.strictEqual(a.text, b.text)
      assert.notStrictEqual(a.text, c.text)
      assert.strictEqual(a.size.lines, a.text.split("\n").length - 1)
      assert.strictEqual(a.size.bytes, Buffer.byteLength(a.text))
      assert.isTrue(a.text.includes(`"type":"stream_event"`))
    }))

  for (const text of ["ascii", "mixed"] as const) {
    it(`writes a valid big line of ${text} text, exactly the size asked`, () =>
      withDir((dir) => {
        const file = path.join(dir, "big.jsonl")
        const lineBytes = 1024 * 1024 + 3
        const size = generate.writeBigLine(file, lineBytes, 1, text)
        const bytes = fs.readFileSync(file)
        assert.strictEqual(size.bytes, bytes.length)
        const lines = new TextDecoder("utf-8", { fatal: true }).decode(bytes).split("\n").filter((l) => l.length > 0)
        assert.strictEqual(lines.length, size.lines)
        const big = lines.find((l) => Buffer.byteLength(l) === lineBytes)
        assert.isDefined(big)
        const content = JSON.parse(big!).message.content[0].content as string
        assert.strictEqual(/[^\x20-\x7e]/.test(content), text === "mixed")
        if (text === "mixed") assert.include(content, "naïve 🙂 résumé\n")
      }))
  }

  it("every variant reads every message, each in its own process", () =>
    withDir(async (dir) => {
      const input = path.join(dir, "partial.jsonl")
      const empty = path.join(dir, "empty.jsonl")
      fs.writeFileSync(empty, "")
      const size = generate.writeTranscript(input, { seed: 3, bytes: 200_000, partial: true })
      const measured = await pool.measure(variants.map((v) => v.name), input, { runs: 1, warmup: 0, emptyFile: empty })
      const rows = measured.map((m, i) => report.row("partial", variants[i]!.label, m, size))
      assert.deepStrictEqual(report.countMismatches(rows, size.lines), [])
      for (const r of rows) assert.isTrue(r.medianMs > 0 && r.peakRssMB >= r.baseRssMB, r.variant)
    }), 120_000)

  it("every latency reader gets every paced line and the result", () =>
    withDir((dir) => {
      const input = path.join(dir, "partial.jsonl")
      generate.writeTranscript(input, { seed: 4, bytes: 50_000, partial: true })
      const script = path.join(import.meta.dirname, "..", "..", "bench", "latency.ts")
      for (const reader of readers) {
        const out = childProcess.execFileSync(process.execPath, [script, reader, input, "1", "12"], { encoding: "utf8" })
        const result = JSON.parse(out.trim()) as LatencyResult
        // 12 lines, none of them a result, then the transcript's first result.
        assert.deepStrictEqual([result.reader, result.count], [reader, 13])
        assert.isTrue(result.p50 > 0 && result.p50 <= result.p99 && result.p99 <= result.max, reader)
      }
    }), 120_000)
})
