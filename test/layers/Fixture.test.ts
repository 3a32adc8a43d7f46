/**
 * Fixture and Recording layers: every corpus and fixture file records and replays to the same messages and
 * in-band errors at the same lines; a recorded run replays its ending (exit code, stderr tail, failure, a
 * strict run's bad line) and the lines its framing rejected, strict and lenient; overlapping runs never mix
 * in a recording; unreadable fixtures and unwritable recordings are typed errors.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import type * as CliError from "../../src/ClaudeCliError.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Recording from "../../src/layers/Recording.ts"
import { isDecodeError, type LineTooLong } from "../../src/stream/DecodeError.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import { allStreamJsonFiles, fixturesDir } from "../support/Corpus.ts"
import { reasonOf, runToEnd } from "./support.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-fixture-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const recordedLines = (name: string) =>
  fs.readFileSync(path.join(fixturesDir, "recorded", `${name}.jsonl`), "utf8").split("\n").filter((l) => l !== "")
const hello = recordedLines("simple_hello")

const readMeta = (file: string): Recording.Metadata =>
  JSON.parse(fs.readFileSync(Recording.metadataPath(file), "utf8")) as Recording.Metadata

// Real time, for tests on the TestClock that wait for file reads.
const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

/** Runs the same query on the fake CLI of `plan`, recorded to `name`, then on the Fixture layer replaying it. */
const recordThenReplay = (plan: FaultCli.Plan, name: string, mode: "strict" | "lenient" = "lenient") =>
  Effect.gen(function*() {
    const file = path.join(dir, name)
    const query = mode === "strict" ? ClaudeCli.query("p") : ClaudeCli.query("p", { onBadLine: "emit" })
    const recorded = yield* runToEnd(Stream.provide(query, Layer.orDie(FaultCli.layer(plan).pipe(Recording.layer(file)))))
    const replayed = yield* runToEnd(Stream.provide(query, Fixture.layer(file)))
    return { recorded, replayed, meta: readMeta(file) }
  })

// What a consumer sees of an item, a bad line's error by its data (its cause is not kept by a recording).
const seen = (item: unknown) =>
  isDecodeError(item) ? { line: item.line, reason: item.reason._tag, raw: item.raw, detail: item.detail, maxLineBytes: (item.reason as LineTooLong).maxLineBytes } : item

// How a run ended, a failure by its reason's data and message.
const ending = (exit: Exit.Exit<void, CliError.ClaudeCliError>): Readonly<Record<string, unknown>> => {
  if (Exit.isSuccess(exit)) return { _tag: "Success" }
  const { cause: _, ...fields } = reasonOf(exit) as { readonly cause?: unknown }
  return { ...fields, message: reasonOf(exit).message }
}

const processExited = (exit: Exit.Exit<void, CliError.ClaudeCliError>) => {
  const reason = reasonOf(exit)
  assert.strictEqual(reason._tag, "ProcessExited")
  return reason as Extract<CliError.Reason, { readonly _tag: "ProcessExited" }>
}

describe("Fixture and Recording", () => {
  for (const file of allStreamJsonFiles) {
    it.live(`records and replays ${path.basename(file)} to the same messages`, () =>
      Effect.gen(function*() {
        const original = yield* runToEnd(Stream.provide(ClaudeCli.query("p", { onBadLine: "emit" }), Fixture.layer(file)))
        const out = path.join(dir, path.basename(file))
        const recorded = yield* runToEnd(Stream.provide(
          ClaudeCli.query("p", { onBadLine: "emit", env: { ANTHROPIC_API_KEY: "sk-ant-never-shown" } }),
          Fixture.layer(file).pipe(Recording.layer(out))
        ))
        const replayed = yield* runToEnd(Stream.provide(ClaudeCli.query("p", { onBadLine: "emit" }), Fixture.layer(out, { pacing: "recorded" })))
        // Bad lines too: a blank line holds the place of each blank or rejected line, so numbers match.
        assert.deepStrictEqual(recorded.items.map(seen), original.items.map(seen))
        assert.deepStrictEqual(replayed.items.map(seen), original.items.map(seen))
        // Corpus captures without a result end in MissingResult every time.
        assert.deepStrictEqual(replayed.exit, original.exit)
        assert.notInclude(fs.readFileSync(Recording.metadataPath(out), "utf8"), "sk-ant-never-shown")
      }))
  }

  it.effect("recorded pacing replays under the TestClock", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "paced.jsonl")
      fs.writeFileSync(file, hello.join("\n") + "\n")
      const timings = hello.map((_, i) => i * 1000)
      const meta: Recording.Metadata = { prompt: "p", options: {}, timings, exit: { _tag: "Success" }, rejected: [] }
      fs.writeFileSync(Recording.metadataPath(file), JSON.stringify(meta))
      const seen: Array<unknown> = []
      const fiber = yield* ClaudeCli.query("p").pipe(
        Stream.runForEach((m) => Effect.sync(() => seen.push(m))),
        Effect.provide(Fixture.layer(file, { pacing: "recorded" })),
        Effect.forkChild
      )
      // The file is read in real time; the first line is due at once, the next one only at 1000 ms.
      while (seen.length === 0) yield* realPause
      for (let i = 0; i < 10; i++) yield* realPause
      assert.strictEqual(seen.length, 1)
      for (let i = 1; i < hello.length; i++) {
        yield* TestClock.adjust(999)
        assert.strictEqual(seen.length, i, `line ${i + 1} waits for its time`)
        yield* TestClock.adjust(1)
        assert.strictEqual(seen.length, i + 1)
      }
      yield* Fiber.join(fiber)
    }))

  it.live("a recorded non-zero exit replays as ProcessExited", () =>
    Effect.gen(function*() {
      const { recorded, replayed, meta } = yield* recordThenReplay(
        FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.write("fatal: overloaded\n", "stderr"), FaultCli.exit(3)),
        "exit3.jsonl"
      )
      const live = processExited(recorded.exit)
      const replay = processExited(replayed.exit)
      assert.deepStrictEqual([replay.exitCode, replay.signal, replay.stderrTail], [3, null, "fatal: overloaded\n"])
      assert.deepStrictEqual([replay.exitCode, replay.signal, replay.stderrTail], [live.exitCode, live.signal, live.stderrTail])
      assert.deepStrictEqual(replayed.items, recorded.items)
      assert.strictEqual(replayed.items.length, 2)
      assert.strictEqual(meta.exit._tag, "Failure")
    }))

  it.live("a recorded kill mid-line replays with the signal and cut line", () =>
    Effect.gen(function*() {
      const { recorded, replayed } = yield* recordThenReplay(
        FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.partial(hello[1], 50), FaultCli.kill("SIGKILL")),
        "killed.jsonl",
        "strict"
      )
      const replay = processExited(replayed.exit)
      assert.deepStrictEqual([replay.signal, replay.exitCode], ["SIGKILL", null])
      assert.include(String(replay.cause), "line 2 was cut by the kill")
      assert.strictEqual(String(replay.cause), String(processExited(recorded.exit).cause))
      assert.deepStrictEqual(replayed.items, recorded.items)
    }))

  it.live("a recorded exit without a result replays as MissingResult", () =>
    Effect.gen(function*() {
      const { recorded, replayed, meta } = yield* recordThenReplay(
        FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.write("gave up\n", "stderr"), FaultCli.exit(0)),
        "noresult.jsonl"
      )
      assert.deepStrictEqual(meta.exit, { _tag: "Success", exitCode: 0, stderrTail: "gave up\n" })
      const reason = reasonOf(replayed.exit)
      assert.strictEqual(reason._tag, "MissingResult")
      assert.deepStrictEqual(reason, reasonOf(recorded.exit))
      assert.include(reason.message, "gave up")
    }))

  for (
    const [kind, bad] of [
      ["invalid UTF-8", Buffer.concat([Buffer.from("Warnung: Hunter2-Hunter2 Gr"), Buffer.from([0xfc]), Buffer.from("n\n")])],
      ["too long", Buffer.from("Hunter2-Hunter2 " + "x".repeat(5000) + "\n")]
    ] as const
  ) {
    it.live(`a rejected line (${kind}) is kept at its line and replays as it ran`, () =>
      Effect.gen(function*() {
        const stdout = [hello[0] + "\n\n", bad, "Warning: plain text\n" + hello.slice(1).join("\n") + "\n"]
        const live = Live.layerWith({ maxLineBytes: 4096 }).pipe(Layer.provide(FakeSpawner.layer({ stdout })))
        const options = { env: { DB_PASSWORD: "Hunter2-Hunter2" } }
        const strict = yield* runToEnd(Stream.provide(ClaudeCli.query("p", options), live))
        const lenient = yield* runToEnd(Stream.provide(ClaudeCli.query("p", { ...options, onBadLine: "emit" }), live))
        assert.strictEqual(ending(strict.exit).line, 3, "the live strict run fails at the rejected line")
        assert.deepStrictEqual(lenient.items.filter(isDecodeError).map((e) => [e.line, e.reason._tag]), [
          [3, kind === "too long" ? "LineTooLong" : "InvalidUtf8"],
          [4, "InvalidJson"]
        ])
        for (const mode of ["lenient", "strict"] as const) {
          const file = path.join(dir, `rejected-${kind.replace(/\W/g, "")}-${mode}.jsonl`)
          const onBadLine = mode === "strict" ? "fail" : "emit"
          yield* runToEnd(Stream.provide(ClaudeCli.query("p", { ...options, onBadLine }), live.pipe(Recording.layer(file))))
          const meta = readMeta(file)
          assert.deepStrictEqual(meta.rejected.map((r) => [r.line, r.reason]), [[3, kind === "too long" ? "LineTooLong" : "InvalidUtf8"]])
          assert.include(meta.rejected[0]!.raw, "<redacted>")
          assert.notInclude(fs.readFileSync(file, "utf8") + JSON.stringify(meta), "Hunter2-Hunter2")
          // The strict run stopped at the bad line: that is its ending, not an interruption.
          assert.deepStrictEqual(meta.exit._tag === "Failure" ? meta.exit.reason : meta.exit._tag, mode === "strict" ? ending(strict.exit)._tag : "Success")
          const replayStrict = yield* runToEnd(Stream.provide(ClaudeCli.query("p"), Fixture.layer(file)))
          assert.deepStrictEqual(replayStrict.items, strict.items, `${mode} recording, strict replay: the messages`)
          assert.deepStrictEqual(ending(replayStrict.exit), ending(strict.exit), `${mode} recording, strict replay: the ending`)
          if (mode === "lenient") {
            const replayLenient = yield* runToEnd(Stream.provide(ClaudeCli.query("p", { onBadLine: "emit" }), Fixture.layer(file)))
            assert.deepStrictEqual(replayLenient.items.map(seen), lenient.items.map(seen), "lenient replay: every item")
            assert.strictEqual(replayLenient.exit._tag, "Success")
          }
        }
      }))
  }

  it.live("a run stopped by a plain-text line is recorded with DecodeFailed", () =>
    Effect.gen(function*() {
      const { recorded, replayed, meta } = yield* recordThenReplay(
        FaultCli.plan(FaultCli.lines([hello[0]!, "Warning: plain text", ...hello.slice(1)]), FaultCli.exit(0)),
        "plain-strict.jsonl",
        "strict"
      )
      assert.strictEqual(meta.exit._tag === "Failure" && meta.exit.reason, "DecodeFailed")
      assert.deepStrictEqual(ending(replayed.exit), ending(recorded.exit))
      assert.strictEqual(ending(recorded.exit).line, 2)
      const lenient = yield* runToEnd(Stream.provide(ClaudeCli.query("p", { onBadLine: "emit" }), Fixture.layer(path.join(dir, "plain-strict.jsonl"))))
      assert.strictEqual(lenient.items.filter(isDecodeError)[0]?.line, 2)
      assert.deepStrictEqual(ending(lenient.exit), ending(recorded.exit))
    }))

  it.live("a run its consumer interrupts is recorded as Interrupted", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "taken.jsonl")
      const live = Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout: hello.map((l) => l + "\n") })))
      const taken = yield* ClaudeCli.query("p").pipe(Stream.take(1), Stream.runCollect, Effect.provide(live.pipe(Recording.layer(file))))
      assert.strictEqual(taken.length, 1)
      assert.deepStrictEqual(readMeta(file).exit, { _tag: "Interrupted" })
      const replayed = yield* runToEnd(Stream.provide(ClaudeCli.query("p"), Fixture.layer(file)))
      assert.deepStrictEqual(replayed.items.slice(0, 1), taken)
    }))

  it.live("overlapping runs never mix: the last to end wins", () =>
    Effect.gen(function*() {
      const sub = fs.mkdtempSync(path.join(dir, "overlap-"))
      const file = path.join(sub, "run.jsonl")
      const first = recordedLines("read_file")
      const second = recordedLines("math_calculation")
      const live = Live.layerWith().pipe(
        Layer.provideMerge(FakeSpawner.layer((i) => ({ stdout: (i === 0 ? first : second).map((l) => l + "\n") }))),
        Recording.layer(file)
      )
      const started = yield* Latch.make(false)
      const gate = yield* Latch.make(false)
      yield* Effect.gen(function*() {
        // The first run reads one message and waits while the second runs from start to end.
        let read = 0
        const slow = yield* ClaudeCli.query("first").pipe(
          Stream.tap(() => read++ === 0 ? Effect.andThen(started.open, gate.await) : Effect.void),
          Stream.runDrain,
          Effect.forkChild
        )
        yield* started.await
        yield* Stream.runDrain(ClaudeCli.query("second"))
        assert.deepStrictEqual(fs.readFileSync(file, "utf8"), second.join("\n") + "\n")
        assert.strictEqual(readMeta(file).prompt, "second")
        yield* gate.open
        yield* Fiber.join(slow)
      }).pipe(Effect.provide(live))
      assert.deepStrictEqual(fs.readFileSync(file, "utf8"), first.join("\n") + "\n")
      assert.strictEqual(readMeta(file).prompt, "first")
      assert.strictEqual(readMeta(file).timings.length, first.length)
      assert.deepStrictEqual(fs.readdirSync(sub).sort(), ["run.jsonl", "run.jsonl.meta.json"])
    }))

  it.live("an unwritable directory: RecordingFailed, the CLI not started", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "no-such-dir", "run.jsonl")
      const { items, exit } = yield* runToEnd(ClaudeCli.query("p"))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "RecordingFailed")
      assert.include(reason.message, file)
      assert.deepStrictEqual(items, [])
      assert.deepStrictEqual(yield* FakeSpawner.spawned, [])
    }).pipe(Effect.provide(
      Live.layerWith().pipe(
        Recording.layer(path.join(dir, "no-such-dir", "run.jsonl")),
        Layer.provideMerge(FakeSpawner.layer({ stdout: hello.join("\n") + "\n" }))
      )
    )))

  it.live("a missing fixture or bad metadata is FixtureUnreadable", () =>
    Effect.gen(function*() {
      const missing = path.join(dir, "missing.jsonl")
      const gone = reasonOf((yield* runToEnd(Stream.provide(ClaudeCli.query("p"), Fixture.layer(missing)))).exit)
      assert.strictEqual(gone._tag, "FixtureUnreadable")
      assert.include(gone.message, `Cannot replay the fixture "${missing}"`)
      const file = path.join(dir, "badmeta.jsonl")
      fs.writeFileSync(file, hello.join("\n") + "\n")
      fs.writeFileSync(Recording.metadataPath(file), "{\"prompt\": 1}")
      const bad = reasonOf((yield* runToEnd(Stream.provide(ClaudeCli.query("p"), Fixture.layer(file)))).exit)
      assert.strictEqual(bad._tag, "FixtureUnreadable")
      assert.include(bad.message, Recording.metadataPath(file))
      assert.include(bad.message, "not a recording's metadata")
    }))
})
