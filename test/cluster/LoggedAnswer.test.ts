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
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as LoggedAnswer from "../../src/cluster/internal/loggedAnswer.ts"
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

// Two recorded turns (fixtures/recorded): an attempt's init, answer and result each, with uuids of their own.
const recorded = (name: string) =>
  TurnLog.decodeAll(
    fs.readFileSync(path.join(import.meta.dirname, "../../fixtures/recorded", `${name}.jsonl`), "utf8").trim().split("\n").map((line) => JSON.parse(line))
  )
const first = recorded("simple_hello")
const other = recorded("math_calculation")
const events = (attempt: number, messages: ReadonlyArray<(typeof first)[number]>) => [
  new AgentSession.TurnStarted({ turnId: "t", attempt }),
  ...messages.map((message) => new AgentSession.TurnMessage({ message }))
]

// `streamed` through the guard, with the log's turn "t" finished with `logged`.
const guarded = (streamed: ReadonlyArray<AgentSession.TurnEvent>, logged: ReadonlyArray<(typeof first)[number]>) =>
  Effect.gen(function*() {
    const log = yield* TurnLog.makeMemory
    yield* log.begin("e", "t", "p")
    yield* log.finish("e", "t", logged)
    return yield* Stream.fromIterable(streamed).pipe(LoggedAnswer.guard(log, "e", "t"), Stream.runCollect)
  })

describe("AgentSession client: a stream that ends without its result", () => {
  it.effect("another attempt finished the turn: the stream ends with that attempt, from the log", () =>
    Effect.gen(function*() {
      const streamed = events(1, first.slice(0, 2))
      const out = yield* guarded(streamed, other)
      assert.deepStrictEqual(out, [...streamed, new AgentSession.TurnReplayed({ turnId: "t" }), ...events(2, other).slice(1)])
    }))

  it.effect("the attempt it followed finished: only what the stream had not brought", () =>
    Effect.gen(function*() {
      const streamed = events(1, first.slice(0, 2))
      const out = yield* guarded(streamed, first)
      assert.deepStrictEqual(out, [...streamed, new AgentSession.TurnReplayed({ turnId: "t" }), ...events(1, first.slice(2)).slice(1)])
    }))

  it.effect("with its result, the stream is left as it is", () =>
    Effect.gen(function*() {
      const streamed = events(1, first)
      assert.deepStrictEqual(yield* guarded(streamed, other), streamed)
    }))
})
