/**
 * `npm run demo:cluster` as a person runs it: a child process whose last line is the JSON of what it counted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as child from "node:child_process"
import * as path from "node:path"

// On timeout SIGTERM: the demo then stops its runners and its PostgreSQL as it ends.
const demo = path.join(import.meta.dirname, "..", "..", "examples", "cluster.ts")

describe("cluster demo", () => {
  it("prints the failover as it happens and ends with the honest counts", async () => {
    // The failover test runs on the default serialization (binary); this one on the other.
    const result = child.spawnSync(process.execPath, [demo], {
      encoding: "utf8",
      timeout: 240_000,
      killSignal: "SIGTERM",
      env: { ...process.env, CLAUDE_CLUSTER_SERIALIZATION: "ndjson" }
    })
    assert.strictEqual(result.status, 0, result.stderr.slice(-2000))
    const lines = result.stdout.trim().split("\n")
    assert.include(result.stdout, "SIGKILL runner A")
    assert.include(result.stdout, "RPCs in ndjson")
    assert.deepStrictEqual(JSON.parse(lines.at(-1)!), {
      runners: 2,
      sessions: 4,
      killed: 1,
      resumed: 2,
      retriedTurns: 1,
      duplicateModelRequests: 0,
      orphans: 0,
      historyKept: true
    }, result.stdout)
  }, 300_000)
})
