/**
 * A client's `Turn` stream that waits on a turn the log has finished ends, from the log (issue 23: no wait
 * without an end). The entity here logs the turn and then never ends its reply, as a runner stopped or killed
 * between logging a turn and saving its last reply leaves it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"

const script: Script.Script = {
  conversations: [
    Script.conversation("stuck", MessagesRequest.firstUserTextIncludes("stuck"), [Script.turn("Stuck one.")])
  ],
  sideReply: "Scripted session"
}

// The memory log, whose `finish` of turn "lost" keeps the messages and then never returns.
const losing = Layer.effect(
  TurnLog.TurnLog,
  Effect.map(TurnLog.makeMemory, (log) =>
    TurnLog.TurnLog.of({
      ...log,
      finish: (entityId, turnId, messages, fence) =>
        Effect.andThen(log.finish(entityId, turnId, messages, fence), turnId === "lost" ? Effect.never : Effect.void)
    }))
)

const env = AgentSession.layer().pipe(
  Layer.provideMerge(Layer.merge(TestRunner.layer, losing)),
  Layer.provideMerge(Scripted.layer(() => script))
)

describe("AgentSession client: a turn the log has finished", () => {
  it.live("a stream whose end was lost ends from the log", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const events = yield* client("s").Turn({ turnId: "lost", prompt: "stuck: one" }).pipe(
        Stream.runCollect,
        // Bounded, so that the defect fails the test rather than hangs it.
        Effect.timeoutOrElse({ duration: "90 seconds", orElse: () => Effect.fail("the turn's stream never ended" as const) })
      )
      const last = events.at(-1)
      assert.strictEqual(last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : undefined, "Stuck one.")
      assert.deepStrictEqual(events[0], new AgentSession.TurnStarted({ turnId: "lost", attempt: 1 }))
      // Nothing twice: the log's messages the stream had brought are not added again.
      const log = yield* TurnLog.TurnLog
      const logged = yield* log.answer(AgentSession.logKey("AgentSession", "s"), "lost")
      assert.strictEqual(events.filter((event) => event._tag === "TurnMessage").length, logged?.length)
    }).pipe(Effect.provide(env)), 120_000)
})
