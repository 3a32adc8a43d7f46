import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Session from "../../src/session/Session.ts"
import { collect, isDone, outline, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

// Answers each prompt with a short turn whose result echoes it.
const echoing = () =>
  FakeCli.make(FakeCli.serve({
    onUser: (frame, io) => FakeCli.writeAll(io, FakeCli.helloAnswering(`echo: ${frame.message.content}`))
  }))

// Answers each prompt with `count` assistant messages, then a result.
const flooding = (count: number) =>
  FakeCli.make(FakeCli.serve({
    onUser: (_, io) => FakeCli.writeAll(io, [...Array.from({ length: count }, () => FakeCli.helloLines[1]), FakeCli.helloLines[2]])
  }))

describe("Session readers (fake CLI)", () => {
  it.effect("messages readers and a turn each get every message of the turn", () => {
    const fake = echoing()
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const first = yield* Effect.forkChild(collect((yield* session.subscribe).pipe(Stream.take(3))))
      const second = yield* Effect.forkChild(collect((yield* session.subscribe).pipe(Stream.take(3))))
      const turn = yield* collect(session.turn("hello"))
      const expected = ["SystemInit", "AssistantMessage", "echo: hello"]
      assert.deepStrictEqual(outline(turn), expected)
      assert.deepStrictEqual(outline(yield* Fiber.join(first)), expected)
      assert.deepStrictEqual(outline(yield* Fiber.join(second)), expected)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a messages stream started in a fiber sees the turns run in another", () => {
    const fake = echoing()
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const seen: Array<string> = []
      yield* Effect.forkChild(Stream.runForEach(session.messages, (m) => Effect.sync(() => seen.push(outline([m])[0]))))
      yield* settle
      const one = yield* collect(session.turn("one"))
      const two = yield* collect(session.turn("two"))
      assert.deepStrictEqual(outline(one), ["SystemInit", "AssistantMessage", "echo: one"])
      assert.deepStrictEqual(outline(two), ["SystemInit", "AssistantMessage", "echo: two"])
      yield* settle
      assert.deepStrictEqual(seen, [...outline(one), ...outline(two)])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("with no reader the output is dropped, the CLI not held", () => {
    const fake = echoing()
    return Effect.gen(function*() {
      const session = yield* Session.make()
      yield* session.send("unread")
      yield* settle
      assert.strictEqual(fake.unread(), 0)
      assert.deepStrictEqual(outline(yield* collect(session.turn("read"))), ["SystemInit", "AssistantMessage", "echo: read"])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a slow turn reader paces the CLI: bufferSize messages held", () => {
    const fake = flooding(500)
    return Effect.gen(function*() {
      const session = yield* Session.make({ bufferSize: 8 })
      const pull = yield* Stream.toPull(session.turn("flood"))
      yield* pull
      yield* settle
      // 8 in the buffer, one waiting to get in, one being decoded: the rest is still with the CLI.
      assert.isAtLeast(fake.unread(), 501 - 1 - 10)
      let read = 1
      while (true) {
        const done = yield* Effect.match(pull, { onFailure: () => true, onSuccess: (chunk) => (read += chunk.length, false) })
        if (done) break
      }
      assert.strictEqual(read, 501)
      assert.strictEqual(fake.unread(), 0)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a stalled messages reader holds the CLI until it ends", () => {
    const fake = flooding(100)
    return Effect.gen(function*() {
      const session = yield* Session.make({ bufferSize: 8 })
      const stalled = yield* Scope.make()
      yield* Scope.provide(session.subscribe, stalled)
      const turn = yield* Effect.forkChild(collect(session.turn("flood")))
      yield* settle
      assert.isFalse(isDone(turn))
      assert.isAtLeast(fake.unread(), 101 - 1 - 10)
      yield* Scope.close(stalled, Exit.void)
      assert.strictEqual((yield* Fiber.join(turn)).length, 101)
      assert.strictEqual(fake.unread(), 0)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("after the output ends, every reader ends at once, later ones too", () => {
    const fake = echoing()
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const early = yield* Effect.forkChild(collect(yield* session.subscribe))
      yield* session.close
      assert.deepStrictEqual(yield* Fiber.join(early), [])
      assert.deepStrictEqual(yield* collect(session.messages), [])
      assert.deepStrictEqual(yield* collect(yield* session.subscribe), [])
    }).pipe(Effect.provide(fake.layer))
  })
})
