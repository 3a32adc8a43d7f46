/**
 * How `view` closes the runs of one session: a `/compact` in between, a background task finishing after
 * the run that started it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Run from "./support/Run.ts"

const closing = (file: string) =>
  Run.cli(["view", file]).stdout.split("\n").filter((l) => /^Session (complete|failed)/.test(l))
    .map((l) => l.replace(/\d+(?:\.\d)?m?s total \(\d+(?:\.\d)?m?s API\)/, "#s total (#s API)"))

describe("view: the runs of one session", () => {
  it("after /compact, a run shows its own cost and the session's", () => {
    const file = path.join(Run.root, "fixtures", "captures", "compact.jsonl")
    expect(closing(file)).toEqual([
      "Session complete: 1 turn, #s total (#s API), $0.0008",
      "Session complete: 0 turns, #s total (#s API), $0.0008, session $0.0016",
      "Session complete: 1 turn, #s total (#s API), $0.0008, session $0.0024"
    ])
  })
  it("a background task finishing later: one header, one closing line", () => {
    const file = path.join(Run.root, "fixtures", "recorded", "subagent.jsonl")
    const out = Run.cli(["view", file]).stdout
    expect(out.match(/^Session [0-9a-f]{8} · /gm)?.length).toBe(1)
    // Two result lines (2 turns, then the task notification's 1 turn), told as one.
    expect(closing(file)).toEqual(["Session complete: 3 turns, #s total (#s API), $0.0040"])
    expect(out.indexOf("The subagent found 2 files.")).toBeLessThan(out.indexOf("Session complete"))
  })
  it("a background task without its last result: runs closed at the end", () => {
    const lines = fs.readFileSync(path.join(Run.root, "fixtures", "recorded", "subagent.jsonl"), "utf8").trim().split("\n")
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-sessions-"))
    const file = path.join(dir, "cut.jsonl")
    fs.writeFileSync(file, lines.slice(0, -1).join("\n") + "\n")
    expect(closing(file)).toEqual(["Session complete: 2 turns, #s total (#s API), $0.0040"])
    fs.rmSync(dir, { recursive: true })
  })
})
