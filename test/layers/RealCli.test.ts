/**
 * `ClaudeCli` over the real `claude` binary, offline against the scripted model server (Scripted layer):
 * what a user of the library sees, end to end.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Recording from "../../src/layers/Recording.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import { ToolUseBlock } from "../../src/schema/ContentBlock.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as Partial from "../../src/stream/Partial.ts"
import * as Summary from "../../src/stream/Summary.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { fixturesDir } from "../support/Corpus.ts"
import { reasonOf, runToEnd, tempDir } from "./support.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertType = <T extends true>(_: T) => {}

const readLoop = Scripted.layer(({ cwd }) =>
  Script.make([
    Script.turn([Script.text("Reading data.txt."), Script.toolUse("Read", { file_path: `${cwd}/data.txt` })], {
      chunkSize: 4
    }),
    Script.turn("data.txt says hello.")
  ]), { files: { "data.txt": "hello from the sandbox\n" } })

// Pids of processes whose working directory is `dir` (Linux).
const processesIn = (dir: string): Array<number> =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`) === dir ? [Number(pid)] : []
    } catch {
      return []
    }
  })

describe("ClaudeCli over the real CLI", () => {
  it.live("a tool loop end to end, narrowed by a filter", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const messages = yield* ClaudeCli.query("What is in data.txt?").pipe(Stream.runCollect)
      const items = Item.fromIterable(messages)
      const reads = items.filter(Filter.toolUse("Read"))
      const paths = reads.map((item) => {
        const filePath = item.input.file_path
        assertType<Equals<typeof filePath, string>>(true)
        return filePath
      })
      assert.deepStrictEqual(paths, [path.join(sandbox.cwd, "data.txt")])
      const results = items.filter(Filter.toolResult({ name: "Read" }))
      assert.strictEqual(results.length, 1)
      assert.strictEqual(results[0].block.tool_use_id, reads[0].block.id)
      assert.include(JSON.stringify(results[0].block.content), "hello from the sandbox")
      const summary = Summary.summarize(messages)
      assert.deepStrictEqual([summary.success, summary.finalText, summary.numTurns], [true, "data.txt says hello.", 2])
    }).pipe(Effect.provide(readLoop)))

  it.live("partial messages assemble into the assistant messages' content", () =>
    Effect.gen(function*() {
      const events = yield* ClaudeCli.query("What is in data.txt?", { includePartialMessages: true }).pipe(
        Partial.assemble,
        Stream.runCollect
      )
      const calls = events.filter(Partial.Event.$is("ToolCall"))
      const blocks = events.filter(Partial.Event.$is("Message")).flatMap(({ message }) =>
        message.type === "assistant" && "content" in message ? message.content : []
      )
      const uses = blocks.filter((b) => b instanceof ToolUseBlock)
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(
        calls.map((c) => ({ id: c.id, name: c.name, input: c.input })),
        uses.map((b) => ({ id: b.id, name: b.name, input: b.input }))
      )
      assert.isAbove(events.filter(Partial.Event.$is("ToolInputDelta")).length, 1)
      const streamed = events.filter(Partial.Event.$is("TextDelta")).map((d) => d.text).join("")
      assert.strictEqual(streamed, "Reading data.txt.data.txt says hello.")
    }).pipe(Effect.provide(readLoop)))

  it.live("a run interrupted midway leaves no claude process (checked by pid)", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const first: Array<Message> = []
      const fiber = yield* ClaudeCli.query("Tell me slowly").pipe(
        Stream.runForEach((m) => Effect.sync(() => first.push(m))),
        Effect.forkChild
      )
      // Wait until the CLI is streaming its answer (a message arrived), then interrupt.
      while (first.length === 0) yield* Effect.sleep("20 millis")
      const [spawned] = yield* FakeSpawner.spawned
      assert.isTrue(FaultCli.isAlive(spawned.pid), "the CLI runs before the interruption")
      assert.include(processesIn(sandbox.cwd), spawned.pid)
      yield* Fiber.interrupt(fiber)
      assert.isFalse(FaultCli.isAlive(spawned.pid), "the CLI is gone once the interruption returns")
      assert.deepStrictEqual(processesIn(sandbox.cwd), [])
    }).pipe(Effect.provide(
      Scripted.layerWith(Script.make([Script.turn("a slow answer that never quite ends", { eventDelay: "2 seconds" })]))
        .pipe(Layer.provideMerge(FakeSpawner.spy), Layer.provide(NodeServices.layer))
    )))

  it.live("a missing executable is ExecutableNotFound naming what was looked for", () =>
    Effect.gen(function*() {
      const missing = (executable: string) =>
        Effect.map(runToEnd(Stream.provide(ClaudeCli.query("hi"), Live.layer({ executable }))), ({ exit }) => reasonOf(exit))
      const atPath = yield* missing("/nonexistent/bin/claude")
      assert.strictEqual(atPath._tag, "ExecutableNotFound")
      assert.include(atPath.message, "at \"/nonexistent/bin/claude\"")
      const onPath = yield* missing("claude-not-installed-here")
      assert.strictEqual(onPath._tag, "ExecutableNotFound")
      assert.include(onPath.message, "\"claude-not-installed-here\" on PATH")
    }))

  it.live("a non-zero exit gives ProcessExited with code and stderr", () =>
    Effect.gen(function*() {
      const { exit } = yield* runToEnd(ClaudeCli.query("hi", { extraArgs: ["--no-such-flag"] }))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.notStrictEqual(reason.exitCode, 0)
      assert.isNull(reason.signal)
      assert.include(reason.stderrTail, "--no-such-flag")
      assert.include(reason.message, "stderr")
    }).pipe(Effect.provide(Scripted.layer(Script.make([Script.turn("unused")])))))

  it.live("killed mid-line: whole messages, then ProcessExited", () =>
    Effect.gen(function*() {
      const recorded = fs.readFileSync(path.join(fixturesDir, "recorded", "read_file.jsonl"), "utf8")
        .split("\n").filter((line) => line !== "")
      const { items, exit } = yield* runToEnd(ClaudeCli.query("hi")).pipe(
        Effect.provide(FaultCli.layer(FaultCli.plan(
          FaultCli.lines(recorded.slice(0, 3)),
          FaultCli.partial(recorded[3], 60),
          FaultCli.kill("SIGKILL")
        )))
      )
      const reason = reasonOf(exit)
      assert.strictEqual(items.length, 3)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.deepStrictEqual([reason.signal, reason.exitCode], ["SIGKILL", null])
      assert.include(String(reason.cause), "line 4 was cut")
    }))

  it.live("stream-json lines over 1 MiB pass whole", () =>
    Effect.gen(function*() {
      const messages = yield* ClaudeCli.query("Say a lot").pipe(Stream.runCollect)
      const result = Summary.summarize(messages)
      assert.strictEqual(result.finalText, big)
      const assistant = messages.find((m) => m.type === "assistant")
      assert.isDefined(assistant)
      assert.isAbove(JSON.stringify(assistant).length, 1024 * 1024)
    }).pipe(Effect.provide(Scripted.layer(Script.make([Script.turn(big)])))))

  it.live("a prompt starting with \"-\" reaches the model as text, not as a flag", () =>
    Effect.gen(function*() {
      const prompt = "--version -p --help"
      const messages = yield* ClaudeCli.query(prompt).pipe(Stream.runCollect)
      assert.strictEqual(Summary.summarize(messages).finalText, "Not a flag.")
      const [turn] = ScriptedServer.turnRequests(yield* (yield* ScriptedServer.ScriptedServer).requests)
      const request = MessagesRequest.decode(turn.body)
      assert.strictEqual(request._tag, "Some")
      if (request._tag === "Some") assert.include(MessagesRequest.lastUserText(request.value), prompt)
    }).pipe(Effect.provide(Scripted.layer(Script.make([Script.turn("Not a flag.")])))))

  it.live("a recorded run replays through the Fixture layer", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("ecc-record-"), "read.jsonl")
      // The user's program, written against the service only.
      const program = ClaudeCli.query("What is in data.txt?", { env: { MY_TOKEN: "tok-never-stored-42" } }).pipe(
        Stream.runCollect
      )
      const live = yield* program.pipe(Effect.provide(readLoop.pipe(Recording.layer(file))))
      const replayed = yield* program.pipe(Effect.provide(Fixture.layer(file)))
      assert.deepStrictEqual(replayed, live)
      assert.strictEqual(Summary.summarize(replayed).finalText, "data.txt says hello.")
      const meta = fs.readFileSync(Recording.metadataPath(file), "utf8")
      assert.notInclude(meta, "tok-never-stored-42")
      const parsed = JSON.parse(meta) as Recording.Metadata
      assert.deepStrictEqual(parsed.exit._tag === "Success" && parsed.exit.exitCode, 0)
      assert.strictEqual(parsed.prompt, "What is in data.txt?")
      assert.strictEqual(parsed.timings.length, live.length)
    }))

  it.live("ClaudeCli.session runs turns on the layer's CLI", () =>
    Effect.gen(function*() {
      const session = yield* ClaudeCli.session()
      const first = yield* Stream.runCollect(session.turn("Hi"))
      const second = yield* Stream.runCollect(session.turn("Again"))
      assert.strictEqual(first.at(-1)?.type, "result")
      assert.strictEqual((first.at(-1) as { result?: unknown }).result, "First answer.")
      assert.strictEqual((second.at(-1) as { result?: unknown }).result, "Second answer.")
    }).pipe(
      Effect.scoped,
      Effect.provide(Scripted.layer(Script.make([Script.turn("First answer."), Script.turn("Second answer.")])))
    ))
})

const big = "0123456789abcdef".repeat(96 * 1024) // 1.5 MiB of text in one assistant message and the result
