import { assert, describe, it } from "@effect/vitest"
import * as markdown from "../../bench/markdown.ts"
import * as Flags from "../../bench/flags.ts"
import * as report from "../../bench/report.ts"

const row = (input: string, variant: string, times: Array<number>, cpuTimes: Array<number>, peakRssMB = 200): report.Row => ({
  input,
  variant,
  label: `(${variant})`,
  medianMs: Flags.median(times),
  times,
  cpuTimes,
  medianCpuMs: Flags.median(cpuTimes),
  minMs: Math.min(...times),
  maxMs: Math.max(...times),
  mbPerSec: 100,
  messagesPerSec: 1000,
  messages: 100,
  peakRssMB,
  baseRssMB: 80
})

const realInput = { bytes: 200e6, lines: 1000, nonAscii: 0.001, copies: 10, captures: 5 }

const results = (rows: ReadonlyArray<report.Row>): report.Results => ({
  date: "2026-11-28T10:00:00.000Z",
  durationSeconds: 600,
  machine: {
    cpu: "Test CPU", cpus: 2, mhz: 2000, virtualized: true, memoryGB: 8, node: "v24.9.0", platform: "linux",
    commit: "0123456789abcdef", dirty: false, loadAtStart: [3, 2, 1], loadAtEnd: [4, 2, 1]
  },
  config: { runs: 7, warmup: 1 },
  inputs: {},
  throughput: [],
  real: { inputs: { "real-partial": realInput, "real-plain": realInput }, rows },
  bigLine: { lineBytes: 0, rows: [] },
  huge: [],
  schemaStep: [],
  latency: []
})

describe("bench goals on real captures and the README section", () => {
  it("a goal is judged per clock, from per-round ratios", () => {
    // Wall-clock: (d) 1.1x (b); CPU time: 1.5x.
    const rows = [row("real-plain", "b-sdk", [110, 330], [150, 150], 250), row("real-plain", "d-strict", [100, 300], [100, 100], 240)]
    const [wall] = report.realGoals(rows, "real-plain")
    const [cpu, , rss] = report.realGoals(rows, "real-plain", "cpu")
    assert.closeTo(wall!.value, 1.1, 1e-9)
    assert.isFalse(report.reached(wall!))
    assert.closeTo(cpu!.value, 1.5, 1e-9)
    assert.isTrue(report.reached(cpu!))
    assert.closeTo(rss!.value, -10, 1e-9)
    assert.isTrue(report.reached(rss!))
  })

  it("the section names the run, its inputs, and says plainly which goals were not reached", () => {
    const rows = ["real-partial", "real-plain"].flatMap((input) => [
      row(input, "b-sdk", [100, 100], [100, 100]),
      row(input, "d-strict", [100, 100], [50, 50]),
      row(input, "f-query", [100, 100], [100, 100]),
      row(input, "f-cli", [200, 200], [200, 200])
    ])
    const text = markdown.performance(results(rows))
    assert.include(text, "on 2026-11-28 (commit 0123456)")
    assert.include(text, "Test CPU, 2 CPUs at 2000 MHz (virtual machine)")
    assert.include(text, "(7 rounds after 1 warm-up)")
    assert.include(text, "real captures with partial messages (200.0 MB, 1000 lines: 5 captures copied 10 times")
    assert.include(text, "| 1.00 / 2.00: **not reached** in wall-clock time, reached in CPU time |")
    assert.include(text, "| 0.50 / 0.50: **not reached** |")
  })
})
