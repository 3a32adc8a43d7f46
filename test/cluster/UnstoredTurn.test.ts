/**
 * A turn whose transcript the conversation's store did not take (an append that failed, or died with its runner
 * stopped mid-append: the chaos run's `s04`, issue 23) gives no answer: the store's chain lacks it. It was cut
 * by the store, not by its own doing: asked again, it runs again however often that happened, as after a lost
 * lease, rather than being refused as exhausted after two such attempts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"

// A fencing store that fails the appends holding the turn's answer while `refusing`.
let refusing = true
const store = Layer.sync(SessionStore.SessionStore, (): SessionStore.Shape => {
  const memory = MemorySessionStore.make()
  return {
    ...memory,
    append: (key, entries, fence) =>
      refusing && JSON.stringify(entries).includes("Unstored answer.")
        ? Effect.fail(new SessionStore.SessionStoreError({
          reason: new SessionStore.OperationFailed({ operation: "append", key: key.sessionId, cause: new Error("disk on fire") })
        }))
        : memory.append(key, entries, fence)
  }
})

const env = StoredEntity.layer(
  Script.conversation("unstored", MessagesRequest.firstUserTextIncludes("unstored:"), [Script.turn("Unstored answer.")]),
  { retryLimit: { failed: 2 } }
).pipe(Layer.provideMerge(store))

describe("AgentSession: a turn the store did not take", () => {
  it.live("gives no answer, and runs again when asked again, not counted as failed", () =>
    Effect.gen(function*() {
      for (const attempt of [1, 2]) {
        const exit = yield* Effect.exit(Runners.collect("e", "t1", "unstored: hello"))
        assert.isTrue(exit._tag === "Failure" || Runners.resultText(exit.value) !== "Unstored answer.", `attempt ${attempt}`)
      }
      refusing = false
      const third = yield* Runners.collect("e", "t1", "unstored: hello")
      assert.deepStrictEqual(third.filter((e) => e._tag === "TurnStarted"), [new AgentSession.TurnStarted({ turnId: "t1", attempt: 3 })])
      assert.strictEqual(Runners.resultText(third), "Unstored answer.")
    }).pipe(Effect.provide(env)), 180_000)
})
