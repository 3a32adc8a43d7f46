/**
 * How `view` closes the runs of one session: a `/compact` in between, a background task finishing after
 * the run that started it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import * as Run from "./support/Run.ts"

const closing = (file: string) =>
  Run.cli(["view", file]).stdout.split("\n").filter((l) => /^Session (complete|failed)/.test(l))
    .map((l) => l.replace(/\d+(?:\.\d)?m?s total \(\d+(?:\.\d)?m?s API\)/, "#s total (#s API)"))

describe("view: the runs of one session", () => {
  it("after /compact, a run's cost is its own (model_usage_since_last_result) and the session's follows", () => {
    const file = path.join(Run.root, "fixtures", "captures", "compact.jsonl")
    expect(closing(file)).toEqual([
      "Session complete: 1 turn, #s total (#s API), $0.0008",
      "Session complete: 0 turns, #s total (#s API), $0.0008, session $0.0016",
      "Session complete: 1 turn, #s total (#s API), $0.0008, session $0.0024"
    ])
  })
})
