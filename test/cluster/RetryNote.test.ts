/**
 * A retry tells the model what the cut attempt did, from the tool calls the turn log kept. The log was read when
 * the retry was begun, before its runner claimed the log; another runner's attempt may run tools in between.
 * Seen in a chaos run (`s23-t9`): a runner paused after it began the turn again woke up, claimed the log after
 * another runner's attempt had run the turn's Bash command, told the model "It called no tool", and the command
 * ran again (`toolReruns`). Here the turn log does as that other runner did, the moment the retry is begun: it
 * takes the lease and the log and keeps a Bash call as the turn's progress. The retry's note names that call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"
import * as ToolCalls from "./support/toolCalls.ts"

const store = MemorySessionStore.make()
const key = AgentSession.logKey("AgentSession", "e")
const command = "echo ran-by-the-other-runner"

// The other runner's attempt as its progress was logged: a Bash call, no result yet.
const called = ToolCalls.calling([{ name: "Bash", input: { command } }])

// As the retry of "t2" is begun, the other runner logs a Bash call as the turn's progress.
const racing = StoredEntity.racingLog(store, key, (log, entityId, turnId, fence) => log.progress(entityId, turnId, called, fence))

const env = StoredEntity.layer(
  Script.conversation("note", MessagesRequest.firstUserTextIncludes("note:"), [Script.turn("Noted one."), Script.turn("Noted two.")]),
  {},
  racing
).pipe(Layer.provideMerge(Layer.succeed(SessionStore.SessionStore, store)))

describe("AgentSession: a retry's note", () => {
  it.live("names the tool calls another runner's attempt logged before this runner claimed the log", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const log = yield* TurnLog.TurnLog
      const server = yield* ScriptedServer.ScriptedServer
      assert.strictEqual(Runners.resultText(yield* Runners.collect("e", "t1", "note: first")), "Noted one.")
      // Attempt 1 of t2 begun, as on the runner the entity moved from; its CLI gone.
      assert.strictEqual((yield* log.begin(key, "t2", "note: second"))._tag, "Start")
      yield* client("e").Close()

      assert.strictEqual(Runners.resultText(yield* Runners.collect("e", "t2", "note: second")), "Noted two.")
      const asked = ScriptedServer.turnRequests(yield* server.requests).filter((r) =>
        JSON.stringify(r.body).includes("note: second")
      )
      assert.strictEqual(asked.length, 1)
      const body = JSON.stringify(asked[0]!.body)
      assert.include(body, "Its tool calls:")
      assert.include(body, command)
      assert.notInclude(body, "It called no tool.")
    }).pipe(Effect.provide(env)), 120_000)
})
