/**
 * A runner that lost its entity's lease runs no more of its turn's tools: the lease is taken by another holder
 * (here by the scripted model, the moment the turn asks it, as a runner taking the conversation over would)
 * and the tool the model then asks for is denied, not run (the file it would write is not there). Before
 * this, a paused runner's CLI ran its tools while the new holder ran the turn again (the chaos run's
 * `toolReruns`, issue 23).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"

const store = MemorySessionStore.make()
const lease = AgentSession.logKey("AgentSession", "e")

// The second turn's first request takes the lease and the turn log's claim from the runner (once), as a new
// holder does; then the model asks for a tool.
let log: TurnLog.TurnLog["Service"] | undefined
let taken = false
const takeOver = (request: MessagesRequest.MessagesRequest) => {
  if (!taken && log !== undefined && MessagesRequest.lastUserText(request).includes("fence: tool")) {
    taken = true
    Effect.runSync(Effect.flatMap(store.leases!.acquire(lease), (fence) => Effect.orDie(log!.claim(lease, fence))))
  }
  return MessagesRequest.firstUserTextIncludes("fence:")(request)
}

const env = StoredEntity.layer(
  Script.conversation("fence", takeOver, [
    Script.turn("Fenced one."),
    Script.turn(Script.toolUse("Bash", { command: "echo ran > ran.txt" })),
    Script.turn("Fenced two.")
  ]),
  { allowedTools: ["Bash"] }
).pipe(Layer.provideMerge(Layer.succeed(SessionStore.SessionStore, store)))

describe("AgentSession: a runner fenced out", () => {
  it.live("runs none of its turn's tools once another holder took the lease", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      log = yield* TurnLog.TurnLog
      assert.strictEqual(Runners.resultText(yield* Runners.collect("e", "t1", "fence: first")), "Fenced one.")
      // The turn fails (its writes are refused) or ends without its answer; either way the tool never ran.
      const second = yield* Effect.exit(Runners.collect("e", "t2", "fence: tool"))
      assert.isTrue(taken)
      const answered = second._tag === "Success" && Runners.resultText(second.value) === "Fenced two."
      assert.isFalse(answered, "no answer from a runner without the lease")
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "ran.txt")), "the tool did not run")
    }).pipe(Effect.provide(env)), 120_000)
})
