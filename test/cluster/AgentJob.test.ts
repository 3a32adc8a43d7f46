/**
 * A durable job of three turns on the SQL-backed workflow engine, its runner process SIGKILLed during the
 * third turn: a new runner on the same SQLite file resumes it and runs only the third turn again.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../session/support/Real.ts"
import * as Child from "./support/Child.ts"

const runnerScript = path.join(import.meta.dirname, "support", "job.ts")

const script = Script.make([
  Script.turn("One."),
  Script.turn("Two."),
  // Slow enough that the runner is killed while it streams.
  Script.turn("Three, at length: " + "z".repeat(60), { eventDelay: "100 millis", chunkSize: 3 }),
  // The same answer one turn on: a transcript resumed after a kill may carry the CLI's note of the
  // interrupted turn, which the scripted model counts as a turn.
  Script.turn("Three, at length: " + "z".repeat(60))
])

describe("AgentJob on the SQL workflow engine", () => {
  it.live("a job of three turns killed during the third resumes on a new runner and runs only the third", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-job-"))
    return Effect.gen(function*() {
      const server = yield* ScriptedServer.make(script)
      const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url })
      const env = { JOB_DB: path.join(dir, "jobs.db"), JOB_ID: "job-1" }
      const marked = { variable: "JOB_SANDBOX", value: sandbox }
      const turnsRequested = Effect.map(server.requests, (requests) =>
        ScriptedServer.turnRequests(requests).filter((r) => r.kind === "turn").map((r) => r.turn))

      const first = Child.spawn(runnerScript, env, marked)
      yield* Effect.addFinalizer(() => Child.stop(first))
      yield* waitUntil(Effect.map(turnsRequested, (turns) => turns.includes(2))).pipe(Effect.timeout("60 seconds"))
      // The runner and its CLI together, as a host dying takes both: a CLI left running would finish the turn
      // into the transcript the next runner resumes.
      yield* Child.stop(first)
      yield* Effect.promise(() => first.exited)
      assert.isFalse(first.lines.some((line) => "results" in line))
      assert.deepStrictEqual(yield* turnsRequested, [0, 1, 2])

      const second = Child.spawn(runnerScript, env, marked)
      yield* Effect.addFinalizer(() => Child.stop(second))
      const code = yield* Effect.promise(() => second.exited).pipe(Effect.timeout("60 seconds"))
      assert.strictEqual(code, 0)
      const results = second.lines.find((line) => "results" in line)?.results
      assert.deepStrictEqual(results, ["One.", "Two.", "Three, at length: " + "z".repeat(60)])
      // The first two turns reached the model once; only the third was asked again, once (one turn on when
      // the resumed transcript holds the CLI's note of the interrupted turn).
      const requested = yield* turnsRequested
      assert.deepStrictEqual(requested.slice(0, 3), [0, 1, 2])
      assert.strictEqual(requested.length, 4)
      assert.include([2, 3], requested[3])
    }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  }, 150_000)
})
