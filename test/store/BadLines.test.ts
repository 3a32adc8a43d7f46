/**
 * A transcript with bad lines (a torn last line, a bad line in the middle): the messages around them are
 * read, and each bad line is a typed error, failing the read or in-band.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"

const sessionId = "aaaaaaaa-0000-4000-8000-00000000000b"

// Three user/assistant turns, each entry the parent of the next, as JSON lines.
const turns = Array.from({ length: 6 }, (_, i) => {
  const role = i % 2 === 0 ? "user" : "assistant"
  const uuid = `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`
  const parentUuid = i === 0 ? null : `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
  const message = role === "user"
    ? { role, content: `question ${i / 2 + 1}` }
    : { role, id: `msg_${i}`, type: "message", model: "claude-sonnet-4-5", content: [{ type: "text", text: `answer ${(i + 1) / 2}` }], usage: { input_tokens: 1, output_tokens: 1 } }
  return JSON.stringify({ type: role, uuid, parentUuid, isSidechain: false, sessionId, timestamp: "2026-01-01T00:00:00Z", message })
})

// A config directory holding one session with these lines.
const configWith = (lines: ReadonlyArray<string>) => {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "badlines-"))
  const project = path.join(configDir, "projects", "-tmp-badlines")
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), lines.join("\n") + "\n")
  return configDir
}

const texts = (items: ReadonlyArray<unknown>) =>
  items.map((item) => isDecodeError(item) ? `bad line ${item.line}` : Transcript.isMessage(item as Transcript.Entry) ? (item as Transcript.MessageEntry).text : "?")

const read = (configDir: string, onBadLine: "fail" | "emit") =>
  Effect.gen(function*() {
    const files = yield* SessionFiles.make({ configDir })
    const got: Array<unknown> = []
    const exit = yield* Effect.exit(
      Stream.runForEach(files.messages(sessionId, { onBadLine: onBadLine as "emit" }), (m) => Effect.sync(() => got.push(m)))
    )
    fs.rmSync(configDir, { recursive: true, force: true })
    const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
    return { got: texts(got), exit, reason: error?.reason }
  }).pipe(Effect.provide(NodeServices.layer))

const torn = [...turns, turns[0]!.slice(0, 40)]
const middle = [...turns.slice(0, 3), "{\"type\":\"assistant\",\"uuid\":", ...turns.slice(4)]
const all = ["question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3"]

// Read with `onBadLine: "fail"`: `messages`, then `BadTranscript` naming the bad line in `detail`.
const failsAfter = (lines: ReadonlyArray<string>, messages: ReadonlyArray<string>, detail: string) =>
  Effect.gen(function*() {
    const { got, reason } = yield* read(configWith(lines), "fail")
    assert.deepStrictEqual(got, messages)
    assert.strictEqual(reason?._tag, "BadTranscript")
    assert.include(reason?.message, detail)
  })

describe("SessionFiles.messages with bad lines", () => {
  it.effect("a torn last line: every message, then the typed failure", () =>
    failsAfter(torn, all, "line 7: invalid JSON"))

  it.effect("a torn last line, emitted: every message, then the error in-band", () =>
    Effect.gen(function*() {
      const { exit, got } = yield* read(configWith(torn), "emit")
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(got, [...all, "bad line 7"])
    }))

  it.effect("a bad middle line: the messages before it, then the typed failure", () =>
    failsAfter(middle, all.slice(0, 3), "line 4: invalid JSON"))

  it.effect("a bad middle line, emitted: the conversation goes on across it", () =>
    Effect.gen(function*() {
      const { exit, got } = yield* read(configWith(middle), "emit")
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(got, ["question 1", "answer 1", "question 2", "bad line 4", "question 3", "answer 3"])
    }))

  it.effect("a lost parent not written right after a bad line still ends the conversation", () =>
    Effect.gen(function*() {
      const dangling = turns[4]!.replace("\"parentUuid\":\"00000000-0000-4000-8000-000000000004\"", "\"parentUuid\":\"elsewhere\"")
      assert.notStrictEqual(dangling, turns[4])
      const lines = [turns[0]!, turns[1]!, "{\"type\":\"user\",", turns[3]!, dangling, turns[5]!]
      const { got } = yield* read(configWith(lines), "emit")
      assert.deepStrictEqual(got, ["bad line 3", "question 3", "answer 3"])
    }))

  it.effect("fork leaves a torn last line out, or fails on it when asked", () =>
    Effect.gen(function*() {
      const configDir = configWith(torn)
      const files = yield* SessionFiles.make({ configDir })
      const fork = yield* files.forkSession(sessionId)
      assert.deepStrictEqual(fork.skippedLines, [7])
      const forked = yield* Stream.runCollect(files.messages(fork.sessionId))
      const error = yield* Effect.flip(files.forkSession(sessionId, { onBadLine: "fail" }))
      fs.rmSync(configDir, { recursive: true, force: true })
      assert.deepStrictEqual(texts(forked), all)
      assert.strictEqual(error.reason._tag, "BadTranscript")
      assert.include(error.message, "line 7: invalid JSON")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("fork goes on across a bad middle line as messages does", () =>
    Effect.gen(function*() {
      const configDir = configWith(middle)
      const files = yield* SessionFiles.make({ configDir })
      const fork = yield* files.forkSession(sessionId)
      const forked = yield* Stream.runCollect(files.messages(fork.sessionId))
      fs.rmSync(configDir, { recursive: true, force: true })
      assert.deepStrictEqual(fork.skippedLines, [4])
      assert.deepStrictEqual(texts(forked), ["question 1", "answer 1", "question 2", "question 3", "answer 3"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("paging counts messages only", () =>
    Effect.gen(function*() {
      const configDir = configWith(torn)
      const files = yield* SessionFiles.make({ configDir })
      const page = yield* Stream.runCollect(files.messages(sessionId, { offset: 1, limit: 2 }))
      fs.rmSync(configDir, { recursive: true, force: true })
      assert.deepStrictEqual(texts(page), ["answer 1", "question 2"])
    }).pipe(Effect.provide(NodeServices.layer)))
})
