/**
 * A turn's answer reaches its caller only once it is kept: in the conversation's store (so that a runner that
 * resumes the conversation elsewhere has it) and in the turn log. The store here takes a second for each
 * append, as a busy database may; the caller looks at the store and the log the moment it reads the result.
 * A runner that died or lost its lease in that second gave an answer no later turn's history had (the chaos
 * run's `historyBroken` and `duplicatedAnswers`, issue 23).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as StoredEntity from "./support/storedEntity.ts"

// A fencing store (the memory store's leases) whose appends land a second late.
const lateStore = Layer.sync(SessionStore.SessionStore, (): SessionStore.Shape => {
  const store = MemorySessionStore.make()
  return { ...store, append: (key, entries, fence) => Effect.andThen(Effect.sleep("1 second"), store.append(key, entries, fence)) }
})

const env = StoredEntity.layer(
  Script.conversation("kept", MessagesRequest.firstUserTextIncludes("kept:"), [Script.turn("Kept one."), Script.turn("Kept two.")])
).pipe(Layer.provideMerge(lateStore))

// The stored entries of the conversation `sessionId`, as JSON.
const stored = (sessionId: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const [projectKey] = yield* store.findProjects!(sessionId)
    const entries = projectKey === undefined ? Option.none() : yield* store.load({ projectKey, sessionId })
    return JSON.stringify(Option.getOrElse(entries, () => []))
  })

describe("AgentSession: a turn's answer", () => {
  it.live("reaches its caller once the store and the turn log hold it", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const log = yield* TurnLog.TurnLog
      for (const [turnId, prompt, answer] of [["t1", "kept: first", "Kept one."], ["t2", "kept: second", "Kept two."]] as const) {
        // What the store and the log held when the result came, read before the stream goes on.
        const seen = yield* client("e").Turn({ turnId, prompt }).pipe(
          Stream.mapEffect((event) =>
            event._tag === "TurnMessage" && event.message._tag === "ResultSuccess"
              ? Effect.map(
                Effect.all([stored(event.message.session_id), log.answer(AgentSession.logKey("AgentSession", "e"), turnId)]),
                ([store, logged]) => ({ result: event.message._tag === "ResultSuccess" ? event.message.result : "", store, logged })
              )
              : Effect.succeed(undefined)
          ),
          Stream.runCollect,
          Effect.map((events) => events.flatMap((e) => e === undefined ? [] : [e]))
        )
        assert.strictEqual(seen.length, 1, turnId)
        assert.strictEqual(seen[0]!.result, answer)
        assert.include(seen[0]!.store, answer, `${turnId}: the store holds the answer`)
        assert.isDefined(seen[0]!.logged, `${turnId}: the log has the turn finished`)
      }
    }).pipe(Effect.provide(env)), 120_000)
})
