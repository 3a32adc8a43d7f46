import { execFileSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import * as Flags from "../../bench/flags.ts"
import * as report from "../../bench/report.ts"

const MB = 1e6

const row = (variant: string, times: Array<number>, extra: Partial<report.Row> = {}): report.Row => ({
  input: "partial",
  variant,
  label: variant,
  medianMs: Flags.median(times),
  times,
  cpuTimes: times.map((t) => t / 2),
  medianCpuMs: Flags.median(times) / 2,
  minMs: Math.min(...times),
  maxMs: Math.max(...times),
  mbPerSec: 0,
  messagesPerSec: 0,
  messages: 100,
  peakRssMB: 200,
  baseRssMB: 100,
  ...extra
})

describe("bench report", () => {
  it("a throughput ratio is the median of per-round ratios", () => {
    // Round 2 is slow for both (load on the machine): it cancels out within the round.
    const rows = [row("b-sdk", [100, 300, 110]), row("d-strict", [80, 240, 100])]
    const ratios = report.ratios(rows, "partial")
    assert.closeTo(ratios["d/b (goal >= 1.0, aim 1.2)"], 1.25, 1e-9)
    assert.notStrictEqual(ratios["d/b (goal >= 1.0, aim 1.2)"], 110 / 100)
  })

  it("CPU-time ratios compare the CPU times of the rounds", () => {
    const rows = [
      row("b-sdk", [100, 300], { cpuTimes: [90, 90] }),
      row("d-strict", [100, 100], { cpuTimes: [60, 60] })
    ]
    assert.closeTo(report.ratios(rows, "partial")["d/b (goal >= 1.0, aim 1.2)"], 2, 1e-9)
    assert.closeTo(report.ratios(rows, "partial", "cpu")["d/b (goal >= 1.0, aim 1.2)"], 1.5, 1e-9)
  })

  it("an overhead is the extra time of the staged variant", () => {
    const rows = [row("d-strict", [100, 100, 100]), row("e-filter", [108, 110, 112]), row("e-partial", [150, 90, 115])]
    const ratios = report.ratios(rows, "partial")
    assert.closeTo(ratios["e-filter overhead on d (goal < 10%)"], 0.1, 1e-9)
    assert.closeTo(ratios["e-partial overhead on d (goal < 15%)"], 0.15, 1e-9)
  })

  it("the user path is compared with the SDK and bare decoders", () => {
    const rows = [row("f-sdk", [90, 90]), row("f-lib", [100, 100]), row("f-cli", [100, 100])]
    const ratios = report.ratios(rows, "partial")
    assert.closeTo(ratios["f-cli/f-sdk (ClaudeCli.query vs the SDK reader)"], 0.9, 1e-9)
    assert.closeTo(ratios["f-cli/f-lib"], 1, 1e-9)
  })

  it("a missing, failed or uneven variant's ratios are NaN", () => {
    const rows = [row("b-sdk", [100, 100]), row("d-strict", [80, 80], { error: "boom" }), row("a-bytes", [90])]
    const ratios = report.ratios(rows, "partial")
    assert.isNaN(ratios["d/b (goal >= 1.0, aim 1.2)"])
    assert.isNaN(ratios["b/a-bytes"])
    assert.isNaN(ratios["d/c-zod"])
    assert.isNaN(report.ratios(rows, "plain")["f-lib/f-sdk"])
  })

  it("peak RSS is compared within the input", () => {
    const rows = [row("b-sdk", [1], { peakRssMB: 180 }), row("d-strict", [1], { peakRssMB: 150 })]
    assert.strictEqual(report.ratios(rows, "partial")["peak RSS d - b, MB (goal <= 0)"], -30)
  })

  it("names every variant that did not read the whole input", () => {
    const rows = [row("b-sdk", [1]), row("e-filter", [1], { messages: 240 }), row("f-cli", [1], { error: "exited with 1" })]
    assert.deepStrictEqual(report.countMismatches(rows, 100), [
      "partial, e-filter: saw 240 messages, the input has 100",
      "partial, f-cli: failed: exited with 1"
    ])
    assert.deepStrictEqual(report.countMismatches([row("b-sdk", [1])], 100), [])
  })

  it("the big-line factor is the peak above the base, per text", () => {
    const lineBytes = 64 * 1024 * 1024
    const bigLine = {
      lineBytes,
      rows: [
        row("d-strict", [1], { input: "big-line-ascii", baseRssMB: 100, peakRssMB: 100 + (2.5 * lineBytes) / MB }),
        row("d-strict", [1], { input: "big-line-mixed", baseRssMB: 100, peakRssMB: 100 + (3.9 * lineBytes) / MB })
      ]
    }
    assert.closeTo(report.bigLineFactor(bigLine, "ascii", "d-strict"), 2.5, 1e-9)
    assert.closeTo(report.bigLineFactor(bigLine, "mixed", "d-strict"), 3.9, 1e-9)
    assert.isNaN(report.bigLineFactor(bigLine, "mixed", "b-sdk"))
  })

  it("records the machine the run was on", () => {
    const machine = report.machine([0.5, 0.4, 0.3])
    assert.isAbove(machine.cpus, 0)
    assert.isAbove(machine.memoryGB, 0)
    assert.notStrictEqual(machine.cpu, "")
    assert.strictEqual(machine.node, process.version)
    assert.deepStrictEqual(machine.loadAtStart, [0.5, 0.4, 0.3])
    assert.strictEqual(machine.loadAtEnd.length, 3)
    // The commit measured: this checkout's HEAD (none outside a git checkout).
    const head = (() => {
      try {
        return execFileSync("git", ["rev-parse", "HEAD"], { cwd: import.meta.dirname, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
      } catch {
        return undefined
      }
    })()
    assert.strictEqual(machine.commit, head)
    assert.strictEqual(typeof machine.dirty, head === undefined ? "undefined" : "boolean")
  })
})
