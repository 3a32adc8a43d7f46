/**
 * A bookkeeping entry (session metadata beside the conversation) whose fields do not fit its schema: `stats`,
 * `view` and `SessionFiles` over its directory complete, the line counted and told. A conversation entry that
 * does not fit still fails them.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import * as Run from "../cli/support/Run.ts"

const sessionId = "aaaaaaaa-0000-4000-8000-0000000000b1"

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`

// Two user/assistant turns, each entry the parent of the next.
const turns = Array.from({ length: 4 }, (_, i) => {
  const role = i % 2 === 0 ? "user" : "assistant"
  const message = role === "user"
    ? { role, content: `question ${i / 2 + 1}` }
    : { role, id: `msg_${i}`, type: "message", model: "claude-sonnet-4-5", content: [{ type: "text", text: `answer ${(i + 1) / 2}` }], usage: { input_tokens: 1, output_tokens: 1 } }
  return JSON.stringify({ type: role, uuid: uuid(i + 1), parentUuid: i === 0 ? null : uuid(i), isSidechain: false, sessionId, timestamp: "2026-01-01T00:00:00Z", message })
})
const answers = ["question 1", "answer 1", "question 2", "answer 2"]

// Line 3: a title that is not a string (a bookkeeping entry); a conversation entry with a broken uuid.
const brokenTitle = JSON.stringify({ type: "custom-title", customTitle: 7, sessionId })
const brokenTurn = JSON.stringify({ type: "user", uuid: 3, parentUuid: uuid(2), sessionId, message: { role: "user", content: "x" } })
const withLine3 = (line: string) => [...turns.slice(0, 2), line, ...turns.slice(2)]

// A config directory with one session of these lines; its project directory.
const configWith = (lines: ReadonlyArray<string>) => {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bookkeeping-"))
  const project = path.join(configDir, "projects", "-tmp-bookkeeping")
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), lines.join("\n") + "\n")
  return { configDir, project }
}

const messages = (configDir: string, onBadLine: "fail" | "emit") =>
  Effect.gen(function*() {
    const files = yield* SessionFiles.make({ configDir })
    const got: Array<string> = []
    const exit = yield* Effect.exit(Stream.runForEach(files.messages(sessionId, { onBadLine: onBadLine as "emit" }), (m) =>
      Effect.sync(() => got.push(isDecodeError(m) ? `bad line ${m.line}` : (m as Transcript.MessageEntry).text))))
    const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
    return { got, exit, reason: error?.reason }
  }).pipe(Effect.provide(NodeServices.layer))

describe("a bookkeeping entry that does not fit", () => {
  const { configDir, project } = configWith(withLine3(brokenTitle))
  afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }))

  it("stats --every-line counts it and tells it, and exits 0", () => {
    const json = Run.cli(["stats", "--format", "json", "--every-line", project])
    assert.strictEqual(json.status, 0, json.stderr)
    const [file] = JSON.parse(json.stdout).files
    assert.strictEqual(file.lines, 5)
    assert.strictEqual(file.decoded, 5)
    assert.strictEqual(file.failed, 0)
    assert.strictEqual(file.unfit, 1)
    assert.strictEqual(file.kinds["custom-title"], 1)
    assert.strictEqual(file.unfitLines[0].line, 3)
    const pretty = Run.cli(["stats", "--every-line", project])
    assert.strictEqual(pretty.status, 0)
    assert.include(pretty.stdout, "unfit bookkeeping 1")
    assert.match(pretty.stdout, /line 3 unfit \(bookkeeping, counted\): .*"custom-title"[\s\S]*customTitle/)
  })

  it("stats counts it by its type, told from its bytes, and exits 0", () => {
    const json = Run.cli(["stats", "--format", "json", project])
    assert.strictEqual(json.status, 0, json.stderr)
    const [file] = JSON.parse(json.stdout).files
    assert.deepStrictEqual([file.lines, file.decoded, file.failed, file.unfit], [5, 5, 0, 0])
    assert.strictEqual(file.kinds["custom-title"], 1)
  })

  it("view shows the conversation, tells the line, and exits 0", () => {
    const run = Run.cli(["view", project])
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "answer 2")
    assert.match(run.stderr, /line 3 \(bookkeeping, left out\): not a transcript entry .*"custom-title"/)
  })

  it.effect("SessionFiles.messages reads the whole conversation", () =>
    Effect.gen(function*() {
      const { exit, got } = yield* messages(configDir, "fail")
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(got, answers)
    }))

  it.effect("SessionFiles.messages with onBadLine emit tells it in-band", () =>
    Effect.gen(function*() {
      const { exit, got } = yield* messages(configDir, "emit")
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(got, [...answers.slice(0, 2), "bad line 3", ...answers.slice(2)])
    }))

  it.effect("SessionFiles.forkSession with onBadLine fail forks, the line among the skipped", () =>
    Effect.gen(function*() {
      const files = yield* SessionFiles.make({ configDir })
      const fork = yield* files.forkSession(sessionId, { onBadLine: "fail" })
      assert.deepStrictEqual(fork.skippedLines, [3])
      const copied = fs.readFileSync(path.join(project, `${fork.sessionId}.jsonl`), "utf8").trim().split("\n")
      assert.strictEqual(copied.length, turns.length + 1)
      fs.rmSync(path.join(project, `${fork.sessionId}.jsonl`))
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("a conversation entry that does not fit", () => {
  const { configDir, project } = configWith(withLine3(brokenTurn))
  afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }))

  it("fails stats", () => {
    const run = Run.cli(["stats", "--format", "json", project])
    assert.strictEqual(run.status, 1)
    const [file] = JSON.parse(run.stdout).files
    assert.strictEqual(file.failed, 1)
    assert.strictEqual(file.unfit, 0)
  })

  it("fails view", () => {
    const run = Run.cli(["view", project])
    assert.strictEqual(run.status, 1)
    assert.include(run.stderr, "line 3")
  })

  it.effect("fails SessionFiles.messages", () =>
    Effect.gen(function*() {
      const { got, reason } = yield* messages(configDir, "fail")
      assert.deepStrictEqual(got, answers.slice(0, 2))
      assert.strictEqual(reason?._tag, "BadTranscript")
    }))
})
