/**
 * `npm run demo:cluster` as a person runs it: a child process whose last line is the JSON of what it counted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as child from "node:child_process"
import * as path from "node:path"
import * as Kit from "../../examples/cluster-kit.ts"
import type { ScriptedServer } from "../../src/testing/index.ts"

// On timeout SIGTERM: the demo then stops its runners and its PostgreSQL as it ends.
const demo = path.join(import.meta.dirname, "..", "..", "examples", "cluster.ts")

// A request of conversation agenta as the scripted server records it, the CLI's messages given as
// [role, content] pairs; the first user message carries a system reminder before the prompt, as the CLI's does.
const sent = (messages: ReadonlyArray<readonly [string, unknown]>, kind: ScriptedServer.RequestKind = "turn"): ScriptedServer.RecordedRequest => ({
  method: "POST",
  url: "/v1/messages?beta=true",
  headers: {},
  kind,
  conversation: "agenta",
  body: { model: "claude", stream: true, messages: messages.map(([role, content]) => ({ role, content })) }
})
const first = ["user", [{ type: "text", text: "<system-reminder>...</system-reminder>" }, { type: "text", text: "agenta: first" }]] as const
const answer = ["assistant", [{ type: "text", text: Kit.first("agenta") }]] as const
const tool = Kit.toolPrompt("agenta")
const toolCall = ["assistant", [{ type: "tool_use", id: "t1", name: "Bash", input: {} }]] as const
const toolResult = ["user", [{ type: "tool_result", tool_use_id: "t1", content: "done" }]] as const

describe("duplicateModelRequests", () => {
  it("a tool round trip is no duplicate, nor the retry of a turn stopped at its tool call", () => {
    assert.strictEqual(Kit.duplicateModelRequests([sent([first]), sent([first, answer, ["user", tool]]), sent([first, answer, ["user", tool], toolCall, toolResult])]), 0)
    assert.strictEqual(Kit.duplicateModelRequests([
      sent([first]),
      sent([first, answer, ["user", tool]]),
      // The runner died during the tool; the resumed CLI notes the interrupted turn and sends the prompt again.
      sent([first, answer, ["user", tool], ["assistant", "No response requested."], ["user", tool]])
    ]), 0)
  })

  it("counts a finished turn sent again, repeated whole or as a new prompt after its answer", () => {
    assert.strictEqual(Kit.duplicateModelRequests([sent([first]), sent([first])]), 1)
    assert.strictEqual(Kit.duplicateModelRequests([sent([first]), sent([first, answer, first])]), 1)
  })

  it("a request the model did not answer finishes nothing", () => {
    assert.strictEqual(Kit.duplicateModelRequests([sent([first], "failure"), sent([first])]), 0)
  })
})

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
