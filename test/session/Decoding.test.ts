import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as DecodeErrors from "../../src/stream/DecodeError.ts"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { collect } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"


// A fake CLI that answers the first user message with `lines`, then exits when stdin closes.
const replaying = (lines: ReadonlyArray<unknown>) =>
  FakeCli.make(FakeCli.serve({ onUser: (_, io) => FakeCli.writeAll(io, lines) }))

// A session whose first turn fails, with the CLI error it failed with.
const failedTurn = Effect.gen(function*() {
  const session = yield* Session.make()
  const error = yield* Effect.flip(collect(session.turn("hello")))
  assert.instanceOf(error, CliError.ClaudeCliError)
  return { session, error: error as CliError.ClaudeCliError }
})

describe("Session output is typed (fake CLI)", () => {
  describe("corpus and fixture files decode as the stream decoder does", () => {
    for (const file of allStreamJsonFiles) {
      it.effect(path.relative(path.resolve(import.meta.dirname, "../.."), file), () => {
        const bytes = fs.readFileSync(file)
        const expected = Decode.decodeAll(bytes).map((line) => {
          assert.isFalse(DecodeErrors.isDecodeError(line), `${file}: ${String((line as Decode.DecodeError).message)}`)
          return (line as Decode.DecodedLine).message
        })
        const fake = replaying(bytes.toString("utf8").split("\n").filter((l) => l.trim() !== ""))
        return Effect.gen(function*() {
          const session = yield* Session.make()
          const messages = yield* Effect.forkChild(collect(yield* session.subscribe))
          yield* session.send("replay")
          yield* session.close
          assert.deepStrictEqual(yield* Fiber.join(messages), expected)
        }).pipe(Effect.provide(fake.layer))
      })
    }
  })

  it.effect("a turn yields typed messages up to its ResultMessage", () => {
    const fake = replaying([...FakeCli.helloLines, ...FakeCli.helloLines])
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const all = yield* Effect.forkChild(collect((yield* session.subscribe).pipe(Stream.take(6))))
      const turn = yield* collect(session.turn("hello"))
      assert.deepStrictEqual(turn.map((m) => m._tag), ["SystemInit", "AssistantMessage", "ResultSuccess"])
      const result = turn[2]
      assert.strictEqual(result._tag === "ResultSuccess" && result.result.startsWith("Hello!"), true)
      // What the CLI wrote after the turn's result is not the turn's, but output all the same.
      const tags = (yield* Fiber.join(all)).map((m) => m._tag)
      assert.deepStrictEqual(tags, [...turn.map((m) => m._tag), "SystemInit", "AssistantMessage", "ResultSuccess"])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("control frames and keep-alives stay inside the session", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          yield* io.write({ type: "keep_alive" })
          yield* io.write({ type: "control_request", request_id: "r1", request: { subtype: "mystery" } })
          yield* io.read // the session's answer
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const turn = yield* collect(session.turn("hello"))
      assert.deepStrictEqual(turn.map((m) => m._tag), ["SystemInit", "AssistantMessage", "ResultSuccess"])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a line that does not fit fails with DecodeFailed", () => {
    const fake = replaying([FakeCli.helloLines[0], { type: "assistant", message: 42, session_id: "s" }])
    return Effect.gen(function*() {
      const { error, session } = yield* failedTurn
      const reason = error.reason
      assert.instanceOf(reason, CliError.DecodeFailed)
      // Line 1 answers initialize, line 2 replays the prompt, line 3 is system/init.
      assert.strictEqual((reason as CliError.DecodeFailed).line, 4)
      assert.include(error.message, "assistant")
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
      // The session is over: control requests fail at once instead of waiting for their timeout.
      const closed = yield* Effect.flip(session.setModel("opus"))
      assert.instanceOf(closed.reason, SessionError.SessionClosed)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a line that is not JSON fails the output with DecodeFailed", () => {
    const fake = replaying(["Warning: something odd"])
    return Effect.gen(function*() {
      const { error } = yield* failedTurn
      assert.instanceOf(error.reason, CliError.DecodeFailed)
      assert.include(error.message, "Warning: something odd")
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a CLI that exits non-zero fails the output with ProcessExited", () => {
    const fake = FakeCli.make((io) =>
      Effect.gen(function*() {
        const init = yield* io.read
        yield* io.write(FakeCli.success(init))
        yield* io.read
        yield* io.write(FakeCli.helloLines[0])
        return 3
      })
    )
    return Effect.gen(function*() {
      const { error, session } = yield* failedTurn
      const reason = error.reason
      assert.instanceOf(reason, CliError.ProcessExited)
      assert.strictEqual((reason as CliError.ProcessExited).exitCode, 3)
      const send = yield* Effect.flip(session.send("more"))
      assert.instanceOf(send.reason, SessionError.SessionClosed)
    }).pipe(Effect.provide(fake.layer))
  })
})
