import { assert, describe, it } from "@effect/vitest"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const main = path.join(import.meta.dirname, "..", "..", "bench", "main.ts")
const bench = (args: ReadonlyArray<string>) =>
  childProcess.spawnSync(process.execPath, [main, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })

describe("npm run bench", () => {
  it("an unknown flag fails at once with the usage", () => {
    const run = bench(["--quick", "--fast"])
    assert.strictEqual(run.status, 2)
    assert.include(run.stderr, "Unknown option '--fast'")
    assert.include(run.stderr, "usage: npm run bench")
    assert.strictEqual(run.stdout, "")
  })

  it("writes the JSON into a new folder and prints the tables", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-main-"))
    try {
      const file = path.join(dir, "results", "nested", "latest.json")
      const run = bench([
        "--src", "--real", "1", "--size", "1", "--runs", "1", "--warmup", "0", "--big-line", "0", "--huge", "0",
        "--latency-count", "0", "--only", "b-sdk,d-strict", "--json", file
      ])
      assert.strictEqual(run.status, 0, run.stderr)
      assert.include(run.stdout, "== throughput: partial")
      const results = JSON.parse(fs.readFileSync(file, "utf8"))
      assert.deepStrictEqual(results.throughput.map((r: { variant: string }) => r.variant), ["b-sdk", "d-strict", "b-sdk", "d-strict"])
      assert.isNumber(results.ratios.partial["d/b (goal >= 1.0, aim 1.2)"])
      assert.isString(results.machine.cpu)
      assert.deepStrictEqual(
        results.real.rows.map((r: { input: string; variant: string }) => `${r.input} ${r.variant}`),
        ["real-partial b-sdk", "real-partial d-strict", "real-plain b-sdk", "real-plain d-strict"]
      )
      assert.isNumber(results.ratios.real["real-plain"].goals["`Decode.messages` / the SDK reader (readline + `JSON.parse`)"].value)
      assert.include(run.stdout, "== headline: real captures with partial messages")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
