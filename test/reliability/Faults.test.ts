/**
 * The defined behaviour of the CLI stream under each fault of a misbehaving CLI process, proven against a
 * real process (FaultCli) through the real process layer. Titles read "<fault>: <defined behaviour>"; a script
 * turns them into the README's reliability table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as path from "node:path"
import * as Summary from "../../src/stream/Summary.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import * as fs from "node:fs"
import { assertNoneLeft, awaitGone, decodeText, expectReason, fixtureLines, type Item, layer, run, runWith } from "./support/faults.ts"

// system init, assistant text, result
const hello = fixtureLines("simple_hello")
// init, assistant text, assistant tool_use, user tool_result, assistant text, result
const toolRun = fixtureLines("read_file")

const expected = (lines: ReadonlyArray<string>) => decodeText(lines.map((l) => l + "\n").join(""))

// Real time in small steps, for tests whose clock is the TestClock.
const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

describe("Faults", () => {
  describe("exits non-zero after some messages", () => {
    it.effect("every message, then ProcessExited with code and stderr tail", () =>
      Effect.gen(function*() {
        const outcome = yield* run(FaultCli.plan(
          FaultCli.lines(toolRun.slice(0, 4)),
          FaultCli.write("Error: API overloaded\n", "stderr"),
          FaultCli.exit(2)
        ))
        assert.deepStrictEqual(outcome.items, yield* expected(toolRun.slice(0, 4)))
        const reason = expectReason(outcome.exit, "ProcessExited")
        assert.strictEqual(reason.exitCode, 2)
        assert.isNull(reason.signal)
        assert.strictEqual(reason.stderrTail, "Error: API overloaded\n")
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("exits with any code (1, 2, 42, 127, 255)", () => {
    it.effect("ProcessExited with exactly that code", () =>
      Effect.gen(function*() {
        for (const code of [1, 2, 42, 127, 255]) {
          const outcome = yield* run(FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.exit(code)))
          assert.strictEqual(outcome.items.length, 1)
          assert.strictEqual(expectReason(outcome.exit, "ProcessExited").exitCode, code)
          assertNoneLeft(outcome.pids)
        }
      }))
  })

  describe("dies by a signal (SIGTERM, SIGINT, SIGHUP, SIGKILL)", () => {
    it.effect("ProcessExited with the signal, no exit code", () =>
      Effect.gen(function*() {
        for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"] as const) {
          const outcome = yield* run(FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.kill(signal)))
          assert.deepStrictEqual(outcome.items, yield* expected(hello.slice(0, 2)))
          const reason = expectReason(outcome.exit, "ProcessExited")
          assert.strictEqual(reason.signal, signal)
          assert.isNull(reason.exitCode)
          assertNoneLeft(outcome.pids)
        }
      }))
  })

  describe("is killed mid-line (every corpus and fixture file)", () => {
    // Lines are split across writes anywhere; the cut line is the ProcessExited's cause, never a message.
    it.effect("the complete messages, then ProcessExited caused by the cut line", () =>
      Effect.gen(function*() {
        assert.isAbove(allStreamJsonFiles.length, 20)
        for (const file of allStreamJsonFiles) {
          const text = fs.readFileSync(file, "utf8").replace(/\n+$/, "")
          const cutAt = text.lastIndexOf("\n") + 1
          const complete = text.slice(0, cutAt)
          const last = text.slice(cutAt)
          // Three writes cutting lines anywhere (a JSON string, a number, a multi-byte character), then half a line.
          const a = Math.floor(complete.length / 3)
          const b = Math.floor((2 * complete.length) / 3) + 1
          const outcome = yield* run(FaultCli.plan(
            [complete.slice(0, a), complete.slice(a, b), complete.slice(b)].flatMap((piece) =>
              [FaultCli.write(piece), FaultCli.sleep("5 millis")]
            ),
            FaultCli.write(last.slice(0, Math.max(1, Math.floor(last.length / 2)))),
            FaultCli.kill("SIGKILL")
          ), { lenient: true })
          const name = path.basename(file)
          assert.deepStrictEqual(outcome.items, yield* decodeText(complete), name)
          const reason = expectReason(outcome.exit, "ProcessExited")
          assert.strictEqual(reason.signal, "SIGKILL", name)
          assert.include(String(reason.cause), "was cut by the kill", name)
          assertNoneLeft(outcome.pids)
        }
      }), 120_000)
  })

  describe("exits 0 after a line cut mid-way", () => {
    // With onBadLine "emit": the DecodeError, then MissingResult.
    it.effect("the complete messages, then DecodeFailed naming the cut line", () =>
      Effect.gen(function*() {
        const plan = FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.partial(hello[2], 40), FaultCli.exit(0))
        const strict = yield* run(plan)
        assert.deepStrictEqual(strict.items, yield* expected(hello.slice(0, 2)))
        const failed = expectReason(strict.exit, "DecodeFailed")
        assert.strictEqual(failed.line, 3)
        assert.strictEqual(failed.raw, hello[2].slice(0, 40))
        const lenient = yield* run(plan, { lenient: true })
        assert.strictEqual(lenient.items.length, 3)
        assert.strictEqual((lenient.items[2] as { readonly _tag?: string })._tag, "DecodeError")
        expectReason(lenient.exit, "MissingResult")
        assertNoneLeft([...strict.pids, ...lenient.pids], 2)
      }))
  })

  describe("exits 1 after an error result", () => {
    // Max turns, an API error, the budget: the run's summary says what failed.
    it.effect("every message, then a normal end", () =>
      Effect.gen(function*() {
        const maxTurns = fixtureLines("error_max_turns")
        const outcome = yield* run(FaultCli.plan(FaultCli.lines(maxTurns), FaultCli.exit(1)))
        assert.isTrue(Exit.isSuccess(outcome.exit), Exit.isFailure(outcome.exit) ? String(outcome.exit.cause) : "")
        assert.deepStrictEqual(outcome.items, yield* expected(maxTurns))
        const summary = Summary.summarize(outcome.items)
        assert.deepStrictEqual([summary.subtype, summary.isError, summary.success], ["error_max_turns", true, false])
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("exits 1 after a success result, or after a cut line, or dies after an error result", () => {
    it.effect("every message, then ProcessExited", () =>
      Effect.gen(function*() {
        const maxTurns = fixtureLines("error_max_turns")
        const afterSuccess = yield* run(FaultCli.plan(FaultCli.lines(hello), FaultCli.exit(1)))
        assert.deepStrictEqual(afterSuccess.items, yield* expected(hello))
        assert.strictEqual(expectReason(afterSuccess.exit, "ProcessExited").exitCode, 1)
        const killed = yield* run(FaultCli.plan(FaultCli.lines(maxTurns), FaultCli.kill("SIGKILL")))
        assert.strictEqual(expectReason(killed.exit, "ProcessExited").signal, "SIGKILL")
        const cut = yield* run(FaultCli.plan(FaultCli.lines(maxTurns), FaultCli.partial(hello[1], 30), FaultCli.exit(1)))
        assert.include(String(expectReason(cut.exit, "ProcessExited").cause), "was cut by the exit")
        assert.deepStrictEqual(cut.items, yield* expected(maxTurns))
        assertNoneLeft([...afterSuccess.pids, ...killed.pids, ...cut.pids], 3)
      }))
  })

  describe("writes each line in pieces with pauses", () => {
    // Cut inside a string, a number, a multi-byte character and before the newline.
    it.effect("every message arrives whole, as recorded", () =>
      Effect.gen(function*() {
        // init, assistant ("15 × 23 = 345..."), result
        const math = fixtureLines("math_calculation")
        const pieces = (line: string) => {
          const inString = line.indexOf("\"type\":\"") + 10
          const inNumber = line.search(/[1-9]\d/) + 1
          const times = line.indexOf("×")
          return [inString, inNumber, times, times + 1, line.length].filter((at) => at > 0).sort((a, b) => a - b)
        }
        assert.isAbove(math[1].indexOf("×"), 0, "the assistant line has multi-byte text")
        const outcome = yield* run(FaultCli.plan(
          FaultCli.lines(math.slice(0, 1), { pace: "5 millis" }),
          math.slice(1).flatMap((line) => [FaultCli.sleep("5 millis"), ...FaultCli.split(line, pieces(line), { pace: "5 millis" })])
        ))
        assert.isTrue(Exit.isSuccess(outcome.exit))
        assert.deepStrictEqual(outcome.items, yield* expected(math))
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("pauses after a line", () => {
    it.live("that message is delivered at once", () =>
      Effect.gen(function*() {
        const outcome = yield* run(FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.hang), {
          pipe: (s) => Stream.take(s, 1)
        }).pipe(Effect.timeout("20 seconds"))
        assert.deepStrictEqual(outcome.items, yield* expected(hello.slice(0, 1)))
        assert.isTrue(Exit.isSuccess(outcome.exit))
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("ignores SIGTERM", () => {
    it.live("SIGKILL after the grace period, no pid left", () =>
      Effect.gen(function*() {
        const outcome = yield* run(
          FaultCli.ignoreSigterm(FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.hang)),
          { pipe: (s) => Stream.take(s, 2) }
        )
        assert.deepStrictEqual(outcome.items, yield* expected(hello.slice(0, 2)))
        assert.isTrue(Exit.isSuccess(outcome.exit))
        // It got SIGTERM, ignored it, and is gone anyway: only SIGKILL can have ended it.
        assert.strictEqual(outcome.reports[0]?.sigterms, 1)
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("hangs, no idleTimeout", () => {
    // There is no default timeout.
    it.effect("waits; interrupting ends the CLI, no pid left", () =>
      Effect.gen(function*() {
        const fault = yield* FaultCli.FaultCli
        const arrived: Array<Item> = []
        const fiber = yield* runWith({ into: arrived }).pipe(Effect.forkChild)
        while (arrived.length === 0) yield* realPause(10)
        for (let i = 0; i < 24; i++) {
          yield* TestClock.adjust("1 hour")
          yield* realPause(10)
        }
        assert.isUndefined(fiber.pollUnsafe(), "the stream ended on its own")
        const pids = yield* fault.pids
        assert.isTrue(FaultCli.isAlive(pids[0]!), "the hanging CLI is still running before the interruption")
        yield* Fiber.interrupt(fiber)
        assertNoneLeft(pids)
      }).pipe(Effect.provide(layer(FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.hang))), Effect.orDie))
  })

  describe("hangs, idleTimeout set", () => {
    it.effect("IdleTimeout with last line and stderr tail, no pid left", () =>
      Effect.gen(function*() {
        const arrived: Array<Item> = []
        const fiber = yield* run(
          // The stderr line goes before the last stdout line, so it is in its pipe, and read, by the time that line
          // arrived: as it would be in the 30 s of silence the test clock skips (stderr is a pipe of its own).
          FaultCli.plan(
            FaultCli.lines(toolRun.slice(0, 2)),
            FaultCli.write("waiting for tool\n", "stderr"),
            FaultCli.lines(toolRun.slice(2, 3)),
            FaultCli.hang
          ),
          { config: { idleTimeout: "30 seconds" }, into: arrived }
        ).pipe(Effect.forkChild)
        const outcome = yield* untilDone(fiber, "30 seconds", arrived, 3)
        assert.deepStrictEqual(outcome.items, yield* expected(toolRun.slice(0, 3)))
        const reason = expectReason(outcome.exit, "IdleTimeout")
        assert.strictEqual(reason.timeoutMillis, 30_000)
        assert.strictEqual(reason.lastLine, 3)
        assert.strictEqual(reason.stderrTail, "waiting for tool\n")
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("hangs and ignores SIGTERM, idleTimeout set", () => {
    it.effect("IdleTimeout, then SIGKILL, no pid left", () =>
      Effect.gen(function*() {
        const arrived: Array<Item> = []
        const fiber = yield* run(
          FaultCli.ignoreSigterm(FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.hang)),
          { config: { idleTimeout: "10 seconds" }, into: arrived }
        ).pipe(Effect.forkChild)
        const outcome = yield* untilDone(fiber, "10 seconds", arrived, 1)
        assert.strictEqual(outcome.items.length, 1)
        assert.strictEqual(expectReason(outcome.exit, "IdleTimeout").lastLine, 1)
        assert.strictEqual(outcome.reports[0]?.sigterms, 1)
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("is silent while the consumer is slow, idleTimeout set", () => {
    // The idle timer runs only while the stream waits for the CLI.
    it.effect("no timeout", () =>
      Effect.gen(function*() {
        const gate = yield* Latch.make(false)
        const arrived: Array<Item> = []
        // The CLI writes its three lines and then stays alive and silent.
        const fiber = yield* run(FaultCli.plan(FaultCli.lines(hello), FaultCli.hang), {
          config: { idleTimeout: "1 second" },
          pipe: (s) =>
            s.pipe(
              Stream.tap((item) =>
                Effect.suspend(() => {
                  arrived.push(item)
                  return arrived.length === 1 ? gate.await : Effect.void
                })
              ),
              Stream.take(3)
            )
        }).pipe(Effect.forkChild)
        while (arrived.length === 0) yield* realPause(10)
        // The consumer sits on the first message for an hour of (test) time while the silent CLI waits on it.
        yield* realPause(100)
        for (let i = 0; i < 60; i++) yield* TestClock.adjust("1 minute")
        yield* gate.open
        const outcome = yield* Fiber.join(fiber)
        assert.isTrue(Exit.isSuccess(outcome.exit), Exit.isFailure(outcome.exit) ? String(outcome.exit.cause) : "")
        assert.deepStrictEqual(outcome.items, yield* expected(hello))
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("floods stdout, slow consumer", () => {
    // Memory stays under a fixed ceiling; no pid left.
    it.live("backpressure reaches the pipe, bounded memory", () =>
      Effect.gen(function*() {
        const pad = "x".repeat(64 * 1024)
        const line = JSON.stringify({ type: "stream_event", event: { type: "ping" }, pad }) + "\n"
        const take = 300
        let peakHeap = 0
        let peakRss = 0
        const before = process.memoryUsage()
        const outcome = yield* run(FaultCli.plan(FaultCli.lines(hello.slice(0, 1)), FaultCli.flood(line)), {
          lenient: true,
          pipe: (s) =>
            s.pipe(
              Stream.take(take),
              Stream.tap(() =>
                Effect.andThen(
                  realPause(2),
                  Effect.sync(() => {
                    const now = process.memoryUsage()
                    peakHeap = Math.max(peakHeap, now.heapUsed - before.heapUsed)
                    peakRss = Math.max(peakRss, now.rss - before.rss)
                  })
                )
              )
            )
        })
        assert.isTrue(Exit.isSuccess(outcome.exit))
        assert.strictEqual(outcome.items.length, take)
        // The CLI could write gigabytes meanwhile; it got only as far as the reader plus the pipe buffers.
        const written = outcome.reports[0]?.stdoutBytes ?? Infinity
        const consumed = (take - 1) * line.length
        assert.isBelow(written, consumed + 8 * 1024 * 1024, `the CLI wrote ${written} bytes, ${consumed} were read`)
        // Normal use stays under a few MiB of heap and ~30 MiB RSS here; the ceilings are far above that.
        assert.isBelow(peakHeap, 64 * 1024 * 1024, `heap grew by ${peakHeap} bytes`)
        assert.isBelow(peakRss, 160 * 1024 * 1024, `RSS grew by ${peakRss} bytes`)
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("floods stderr (32 MiB)", () => {
    // The error keeps only the last stderrTailBytes.
    it.effect("never blocks, every message, stderr tail bounded", () =>
      Effect.gen(function*() {
        const noise = "warning: something chatty on stderr ".repeat(28) + "\n" // 1 KiB
        const outcome = yield* run(
          FaultCli.plan(
            FaultCli.lines(hello.slice(0, 1)),
            FaultCli.flood(noise, { count: 32 * 1024, fd: "stderr" }),
            FaultCli.lines(hello.slice(1, 2)),
            FaultCli.write("the last words\n", "stderr"),
            FaultCli.exit(1)
          ),
          { config: { stderrTailBytes: 4096 } }
        ).pipe(Effect.timeout("60 seconds"))
        assert.deepStrictEqual(outcome.items, yield* expected(hello.slice(0, 2)))
        const reason = expectReason(outcome.exit, "ProcessExited")
        assert.strictEqual(reason.exitCode, 1)
        assert.isAtMost(Buffer.byteLength(reason.stderrTail), 4096)
        assert.isTrue(reason.stderrTail.endsWith("chatty on stderr \nthe last words\n"))
        assert.strictEqual(outcome.reports[0]?.stderrBytes, 32 * 1024 * noise.length + "the last words\n".length)
        assertNoneLeft(outcome.pids)
      }))
  })

  describe("exits 0 while a child holds stdout and stderr open", () => {
    // With and without idleTimeout; the pipes are drained for Process.drainGracePeriod, then the child ends with the CLI's process group.
    it.live("success after the drain grace period; the child ends too", () =>
      endsOnceDrained(FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.child(["stdout", "stderr"]), FaultCli.lines(hello.slice(2)), FaultCli.exit(0))), 60_000)
  })

  describe("exits 0 while a child holds stderr open", () => {
    // With and without idleTimeout; the stderr tail is read up to the exit, and the child ends with the CLI's process group.
    it.live("success with the stderr tail; the child ends too", () =>
      endsOnceDrained(FaultCli.plan(FaultCli.child(["stderr"]), FaultCli.lines(hello), FaultCli.exit(0))), 60_000)
  })

  describe("exits 0 while a child keeps writing to stdout every 100 ms", () => {
    // With and without idleTimeout; the drain grace period counts waiting in all since the exit, not silence.
    it.live("success within the drain grace period; the child ends too", () =>
      endsOnceDrained(FaultCli.plan(FaultCli.lines(hello.slice(0, 2)), FaultCli.child(["stdout"], { chatty: true }), FaultCli.lines(hello.slice(2)), FaultCli.exit(0))), 60_000)
  })

  describe("never reads stdin (a 4 MiB prompt)", () => {
    it.effect("output and exit unaffected", () =>
      Effect.gen(function*() {
        const outcome = yield* run(FaultCli.neverReadStdin(FaultCli.plan(FaultCli.lines(hello))), {
          prompt: "p".repeat(4 * 1024 * 1024)
        }).pipe(Effect.timeout("60 seconds"))
        assert.isTrue(Exit.isSuccess(outcome.exit))
        assert.deepStrictEqual(outcome.items, yield* expected(hello))
        assert.strictEqual(outcome.reports[0]?.stdin, "")
        assertNoneLeft(outcome.pids)
      }))
  })
})

// Once `count` items arrived (the CLI is then silent), moves the test clock on until the run ends.
const untilDone = <A, E>(fiber: Fiber.Fiber<A, E>, step: `${number} seconds`, arrived: Array<Item>, count: number) =>
  Effect.gen(function*() {
    while (arrived.length < count) yield* realPause(10)
    while (fiber.pollUnsafe() === undefined) {
      yield* TestClock.adjust(step)
      yield* realPause(20)
    }
    return yield* Fiber.join(fiber)
  })

// A run of `plan` (whose CLI leaves a child holding a pipe) ends with every message and no error, with and
// without idleTimeout, and nothing of it is left running.
const endsOnceDrained = (plan: FaultCli.Plan) =>
  Effect.gen(function*() {
    for (const config of [{}, { idleTimeout: "5 seconds" as const }]) {
      const outcome = yield* run(plan, { config }).pipe(
        Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die(new Error("the run hung")) })
      )
      assert.isTrue(Exit.isSuccess(outcome.exit), Exit.isFailure(outcome.exit) ? String(outcome.exit.cause) : "")
      assert.deepStrictEqual(outcome.items, yield* expected(hello))
      assert.strictEqual(outcome.children.length, 1)
      yield* awaitGone([...outcome.pids, ...outcome.children], "5 seconds")
    }
  })
