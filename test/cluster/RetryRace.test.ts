/**
 * A turn re-delivered to another runner is started again there (attempt 2) when its log row says started and
 * not finished; but the runner before may still be running it, and finish it between that look and the new
 * runner's claim of the turn log, which is what fences it out. Seen in a chaos run (`s10-t3`): the runner that
 * had the turn gave its answer to the client, and the new one answered it again (`duplicatedAnswers`). Here the
 * turn log does as that runner did, the moment the retry is begun: it takes the lease and the log and finishes
 * the turn. The retry then answers from the log, without asking the model.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import type * as Message from "../../src/schema/Message.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"

const store = MemorySessionStore.make()
const key = AgentSession.logKey("AgentSession", "e")

// What the other runner finishes the turn with, once the retry is begun: set by the test.
let other: ReadonlyArray<Message.Message> | undefined

// As the retry of "t2" is begun, the other runner finishes the turn (once the test has set its answer).
const racing = StoredEntity.racingLog(store, key, (log, entityId, turnId, fence) =>
  other === undefined ? Effect.void : log.finish(entityId, turnId, other, fence))

const env = StoredEntity.layer(
  Script.conversation("race", MessagesRequest.firstUserTextIncludes("race:"), [Script.turn("Raced one."), Script.turn("Raced two.")]),
  {},
  racing
).pipe(Layer.provideMerge(Layer.succeed(SessionStore.SessionStore, store)))

describe("AgentSession: a retried turn", () => {
  it.live("that the runner before finished meanwhile is answered from the log, not run again", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const log = yield* TurnLog.TurnLog
      const server = yield* ScriptedServer.ScriptedServer
      assert.strictEqual(Runners.resultText(yield* Runners.collect("e", "t1", "race: first")), "Raced one.")
      // The other runner's answer to t2 (the messages of t1 stand in for it); it began t2 first (attempt 1).
      other = (yield* log.answer(key, "t1"))!
      assert.strictEqual((yield* log.begin(key, "t2", "race: second"))._tag, "Start")
      // The entity's CLI gone, as on a runner the entity moved to: the retry starts one, claiming the log.
      yield* client("e").Close()

      const events = yield* Runners.collect("e", "t2", "race: second")
      assert.strictEqual(events[0]?._tag, "TurnReplayed")
      assert.strictEqual(Runners.resultText(events), "Raced one.")
      // The model was never asked the second turn.
      const asked = ScriptedServer.turnRequests(yield* server.requests).filter((r) =>
        JSON.stringify(r.body).includes("race: second")
      )
      assert.strictEqual(asked.length, 0)
    }).pipe(Effect.provide(env)), 120_000)
})
