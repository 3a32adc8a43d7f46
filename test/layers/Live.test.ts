/**
 * The Live layer over the fake spawner (the lowest seam): argument, environment and stdin mapping, and how
 * every way a process can end maps to the typed error. Everything above the spawner is the real code.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Layers from "../../src/layers/index.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Recording from "../../src/layers/Recording.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Telemetry from "../../src/Telemetry.ts"
import * as QueryOptions from "../../src/QueryOptions.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { rawCutLength } from "../../src/stream/internal/cut.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as Testing from "../../src/testing/index.ts"
import { allStreamJsonFiles, fixturesDir } from "../support/Corpus.ts"
import { reasonOf, recordingTracer, runToEnd } from "./support.ts"

const recorded = fs.readFileSync(path.join(fixturesDir, "recorded", "complex_tool_chain.jsonl"), "utf8")
const recordedLines = recorded.split("\n").filter((line) => line !== "")

const withFake = (reply: Parameters<typeof FakeSpawner.layer>[0], config: Live.Config = {}) =>
  Live.layerWith(config).pipe(Layer.provideMerge(FakeSpawner.layer(reply)))

// Cuts a text into chunks of `size` bytes (through multi-byte characters too).
const chunked = (text: string, size: number): Array<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  const out: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

describe("Live layer over the fake spawner", () => {
  it("each layer is reachable from its entry point", () => {
    assert.strictEqual(Layers.Live.layer, Live.layer)
    assert.strictEqual(Layers.Fixture.layer, Fixture.layer)
    assert.strictEqual(Testing.Scripted.layer, Scripted.layer)
    assert.strictEqual(Layers.Recording.layer, Recording.layer)
  })

  it.effect("maps options to argv and sends the prompt on stdin", () =>
    Effect.gen(function*() {
      const options: QueryOptions.QueryOptions = { model: "sonnet", maxTurns: 2, allowedTools: ["Read"] }
      yield* ClaudeCli.query("--help -p me", options).pipe(Stream.runDrain)
      const [spawned] = yield* FakeSpawner.spawned
      assert.strictEqual(spawned.command, "claude")
      assert.deepStrictEqual(spawned.args, QueryOptions.toArgs(options))
      assert.notInclude(spawned.args, "--help -p me")
      assert.strictEqual(spawned.stdin, "--help -p me")
    }).pipe(Effect.provide(withFake({ stdout: recorded }))))

  it.effect("layer settings are defaults a query overrides", () =>
    Effect.gen(function*() {
      yield* ClaudeCli.query("a").pipe(Stream.runDrain)
      yield* ClaudeCli.query("b", { cwd: "/elsewhere", env: { B: "query" }, envMode: "replace" }).pipe(Stream.runDrain)
      const [first, second] = yield* FakeSpawner.spawned
      // Each query's span is the CLI's trace parent (see the tracing test below).
      const { TRACEPARENT: firstParent, ...firstEnv } = first.env ?? {}
      const { TRACEPARENT: secondParent, ...secondEnv } = second.env ?? {}
      assert.deepStrictEqual(
        [first.command, first.cwd, firstEnv, first.extendEnv],
        ["/opt/claude", "/work", { A: "layer", B: "layer", K: "sk-1" }, true]
      )
      assert.deepStrictEqual(
        [second.cwd, secondEnv, second.extendEnv],
        ["/elsewhere", { A: "layer", B: "query", K: "sk-1" }, false]
      )
      assert.match(firstParent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      assert.notStrictEqual(firstParent, secondParent)
    }).pipe(Effect.provide(withFake({ stdout: recorded }, {
      executable: "/opt/claude",
      cwd: "/work",
      env: { A: "layer", B: "layer", K: Redacted.make("sk-1") }
    }))))

  it.effect("the CLI gets the query span's trace context as TRACEPARENT", () =>
    Effect.gen(function*() {
      const { tracer, spans } = recordingTracer()
      yield* ClaudeCli.query("a").pipe(Stream.runDrain, Effect.withSpan("app"), Effect.provideService(Tracer.Tracer, tracer))
      const [spawned] = yield* FakeSpawner.spawned
      const app = spans.find((s) => s.name === "app")!
      const query = spans.find((s) => s.name === Telemetry.querySpanName)!
      assert.strictEqual(query.traceId, app.traceId)
      assert.strictEqual(spawned.env.TRACEPARENT, `00-${query.traceId}-${query.spanId}-01`)
    }).pipe(Effect.provide(withFake({ stdout: recorded }))))

  it.effect("invalid options fail with InvalidOptions before the CLI starts", () =>
    Effect.gen(function*() {
      const exit = yield* ClaudeCli.query("a", { resume: "x", continue: true }).pipe(Stream.runDrain, Effect.exit)
      const reason = reasonOf(exit)
      assert.instanceOf(reason, CliError.InvalidOptions)
      assert.strictEqual(reason._tag === "InvalidOptions" ? reason.description : "", "resume and continue exclude each other")
      assert.deepStrictEqual(yield* FakeSpawner.spawned, [])
    }).pipe(Effect.provide(withFake({ stdout: recorded }))))

  it.effect("a missing executable is ExecutableNotFound with how to install", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* ClaudeCli.query("hi").pipe(Stream.runDrain, Effect.exit))
      assert.strictEqual(reason._tag, "ExecutableNotFound")
      assert.include(reason.message, "\"claude\" on PATH")
      assert.include(reason.message, "executable:")
      assert.include(reason.message, "npm install @anthropic-ai/claude-code")
      assert.include(reason.message, "allowScripts")
    }).pipe(Effect.provide(withFake({ spawnError: "NotFound" }))))

  it.effect("a refused spawn is SpawnFailed", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* ClaudeCli.query("hi").pipe(Stream.runDrain, Effect.exit))
      assert.strictEqual(reason._tag, "SpawnFailed")
      assert.include(reason.message, "/bin/claude")
    }).pipe(Effect.provide(withFake({ spawnError: "PermissionDenied" }, { executable: "/bin/claude" }))))

  it.effect("a non-zero exit: every message, then ProcessExited", () =>
    Effect.gen(function*() {
      const { items, exit } = yield* runToEnd(ClaudeCli.query("hi", { env: { ANTHROPIC_API_KEY: "sk-ant-secret-1" } }))
      const reason = reasonOf(exit)
      assert.strictEqual(items.length, 2)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.strictEqual(reason.exitCode, 3)
      assert.isNull(reason.signal)
      assert.include(reason.stderrTail, "error: bad things")
      assert.notInclude(reason.stderrTail, "sk-ant-secret-1")
      assert.include(reason.message, "exited with code 3")
    }).pipe(Effect.provide(withFake({
      stdout: recordedLines.slice(0, 2).join("\n") + "\n",
      stderr: "error: bad things with key sk-ant-secret-1\n",
      exitCode: 3
    }))))

  it.effect("killed mid-line: whole lines, then ProcessExited with the signal", () =>
    Effect.gen(function*() {
      const { items, exit } = yield* runToEnd(ClaudeCli.query("hi"))
      const reason = reasonOf(exit)
      assert.strictEqual(items.length, 3)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.strictEqual(reason.signal, "SIGKILL")
      assert.isNull(reason.exitCode)
      assert.include(String(reason.cause), "line 4 was cut by the kill")
    }).pipe(Effect.provide(withFake({
      stdout: [recordedLines.slice(0, 3).join("\n") + "\n", recordedLines[3].slice(0, 50)],
      signal: "SIGKILL"
    }))))

  it.effect("a clean exit without a result is MissingResult", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* ClaudeCli.query("hi").pipe(Stream.runDrain, Effect.exit))
      assert.strictEqual(reason._tag, "MissingResult")
      if (reason._tag !== "MissingResult") return
      assert.strictEqual(reason.messages, 2)
      assert.include(reason.stderrTail, "gave up")
      assert.include(reason.message, "gave up")
    }).pipe(Effect.provide(withFake({ stdout: recordedLines.slice(0, 2).join("\n") + "\n", stderr: "gave up\n" }))))

  it.effect("a warning line: DecodeFailed, or in-band with emit", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* ClaudeCli.query("hi").pipe(Stream.runDrain, Effect.exit))
      assert.strictEqual(reason._tag, "DecodeFailed")
      if (reason._tag !== "DecodeFailed") return
      assert.strictEqual(reason.line, 2)
      assert.include(reason.raw, "Warning: something")
      const lenient = yield* ClaudeCli.query("hi", { onBadLine: "emit" }).pipe(Stream.runCollect)
      assert.strictEqual(lenient.filter(isDecodeError).length, 1)
      assert.strictEqual(lenient.filter((m) => !isDecodeError(m)).length, recordedLines.length)
    }).pipe(Effect.provide(withFake({
      stdout: [recordedLines[0], "Warning: something odd", ...recordedLines.slice(1)].join("\n") + "\n"
    }))))

  it.effect("hands on the messages of one read of stdout together", () =>
    Effect.gen(function*() {
      // One read holds every line: each chunk-wise stage (decoding, telemetry) then runs once for all of them.
      const sizes = yield* ClaudeCli.query("hi").pipe(Stream.chunks, Stream.map((chunk) => chunk.length), Stream.runCollect)
      assert.deepStrictEqual(sizes, [recordedLines.length])
    }).pipe(Effect.provide(withFake({ stdout: recorded }))))

  it.effect("a line over maxLineBytes is LineTooLong", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* ClaudeCli.query("hi").pipe(Stream.runDrain, Effect.exit))
      assert.strictEqual(reason._tag, "LineTooLong")
      if (reason._tag !== "LineTooLong") return
      assert.deepStrictEqual([reason.line, reason.maxLineBytes], [1, 1024])
      assert.isTrue(reason.raw.startsWith(recordedLines[0].slice(0, 40)), reason.raw)
      assert.isTrue(reason.raw.endsWith("…"))
      assert.isAtMost(reason.raw.length, rawCutLength + 1)
      // The stream layer's own reason and message: the line, the limit, the raw cut quoted.
      assert.include(reason.message, "line 1:")
      assert.include(reason.message, "1024 bytes")
      assert.include(reason.message, JSON.stringify(reason.raw))
    }).pipe(Effect.provide(withFake({ stdout: recorded }, { maxLineBytes: 1024 }))))

  it.effect("a Fixture layer refuses sessions with SessionUnavailable", () =>
    Effect.gen(function*() {
      const exit = yield* ClaudeCli.session().pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.findErrorOption(exit)
      assert.isTrue(error._tag === "Some" && CliError.isClaudeCliError(error.value))
      const reason = (error as { value: CliError.ClaudeCliError }).value.reason
      assert.strictEqual(reason._tag, "SessionUnavailable")
      assert.include(reason.message, "Fixture")
    }).pipe(Effect.provide(Fixture.layer(allStreamJsonFiles[0]))))

  // Every recording served as a process's stdout, cut into 7-byte reads (through multi-byte characters),
  // decodes to exactly what the Fixture layer gives for the same file.
  for (const file of allStreamJsonFiles) {
    it.effect(`process output = fixture replay: ${path.basename(file)}`, () =>
      Effect.gen(function*() {
        const text = fs.readFileSync(file, "utf8")
        // Items and how the stream ended (corpus captures without a result end in MissingResult).
        const collect = Effect.map(runToEnd(ClaudeCli.query("p", { onBadLine: "emit" })), ({ items, exit }) => ({
          items,
          end: Exit.isSuccess(exit) ? "Success" : reasonOf(exit)._tag
        }))
        const viaProcess = yield* Effect.provide(collect, withFake({ stdout: chunked(text, 7) }))
        const viaFixture = yield* Effect.provide(collect, Fixture.layer(file))
        assert.isAbove(viaFixture.items.length, 0)
        assert.deepStrictEqual(viaProcess, viaFixture)
      }))
  }
})
