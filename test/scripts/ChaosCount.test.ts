/**
 * The chaos run's takeover figure, from rows and lines made here: a take counts for the fault that caused it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Count from "../../scripts/chaos/count.ts"

const lease = (id: number, writer: string, at: number): Count.Write => ({ id, kind: "lease", key: "AgentSession/s1", writer, at })
const entry = (id: number, writer: string, at: number): Count.Write => ({ id, kind: "entry", key: "session-1", writer, at })
const observed = (writes: ReadonlyArray<Count.Write>, faults: ReadonlyArray<Count.Fault>) => ({
  writes,
  faults,
  // The session's turn is in flight from 1 s on.
  clients: [{ asked: "s1-t1", session: "s1", at: 1_000 }],
  sessionEntities: new Map([["session-1", "AgentSession/s1"]])
})

describe("chaos maxTakeover", () => {
  it("a kill, then another runner's lease: the time between", () => {
    const figure = Count.maxTakeover(observed([lease(1, "A1", 0), lease(2, "B1", 13_500)], [{ kind: "kill", target: "A1", at: 2_000 }]))
    assert.strictEqual(figure, 11.5)
  })

  it("a pause the runner woke from still holding the lease: no takeover", () => {
    const figure = Count.maxTakeover(
      observed([lease(1, "A1", 0), entry(2, "A1", 9_000), lease(3, "B1", 120_000)], [{ kind: "stop", target: "A1", at: 2_000 }])
    )
    assert.strictEqual(figure, 0)
  })

  it("a take after a later fault of the same runner is that fault's", () => {
    const figure = Count.maxTakeover(
      observed([lease(1, "A1", 0), lease(2, "B1", 70_000)], [
        { kind: "stop", target: "A1", at: 2_000 },
        { kind: "kill", target: "A1", at: 60_000 }
      ])
    )
    assert.strictEqual(figure, 10)
  })
})
