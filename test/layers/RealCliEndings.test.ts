/**
 * How a query on the real `claude` binary (offline, against the scripted model server) ends: runs ending in an
 * error result complete with their summary, a kill in the middle of a line fails with the cut line, and
 * whatever ends the stream early on the caller's side (a timeout, a failure downstream) leaves no process.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Telemetry from "../../src/Telemetry.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as Summary from "../../src/stream/Summary.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { querySpans, reasonOf, runToEnd, traced } from "./support.ts"

// The scripted layer with a spy on the real spawner, for the real pids.
const spied = (script: Script.Script) =>
  Scripted.layerWith(script).pipe(Layer.provideMerge(FakeSpawner.spy), Layer.provide(NodeServices.layer))

// Real time, for tests on the TestClock that wait for the CLI.
const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

// A run whose model never finishes its answer: the CLI is started and waiting when the caller gives up.
const endless = Script.make([Script.turn("an answer that takes an hour per word", { eventDelay: "1 hour" })])

/**
 * Starts `stream` and waits until it has a message: the CLI is then running. Returns the run's fiber and the
 * CLI's pid, for the test to stop the run and check that the process is gone.
 */
const started = <E>(stream: (arrived: Effect.Effect<void>) => Effect.Effect<unknown, E, ClaudeCli.ClaudeCli>) =>
  Effect.gen(function*() {
    const arrived: Array<true> = []
    const fiber = yield* stream(Effect.sync(() => void arrived.push(true))).pipe(Effect.exit, Effect.forkChild)
    while (arrived.length === 0) yield* realPause(20)
    const spawned = yield* FakeSpawner.spawned
    assert.strictEqual(spawned.length, 1)
    assert.isTrue(FaultCli.isAlive(spawned[0].pid), "the CLI runs before the caller gives up")
    return { fiber, pid: spawned[0].pid }
  })

// Waits until a process has written nothing (to any file or pipe) for half a second: it is blocked.
const untilIdle = (pid: number) =>
  Effect.gen(function*() {
    const written = () => Number(/wchar: (\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, "utf8"))?.[1])
    let last = written()
    for (let still = 0; still < 5;) {
      yield* realPause(100)
      const now = written()
      still = now === last ? still + 1 : 0
      last = now
    }
  })

describe("ClaudeCli over the real CLI: how runs end", () => {
  it.live("maxTurns 1: exit 1 after error_max_turns, the stream completes", () =>
    Effect.gen(function*() {
      let summary: Summary.RunSummary | undefined
      const { spans } = yield* traced(
        ClaudeCli.query("Keep listing files.", { maxTurns: 1, allowedTools: ["Bash"] }).pipe(
          Stream.run(Summary.sink),
          Effect.tap((s) => Effect.sync(() => summary = s))
        )
      )
      assert.isDefined(summary, "the stream completed")
      assert.deepStrictEqual([summary!.subtype, summary!.isError, summary!.success], ["error_max_turns", true, false])
      assert.strictEqual(querySpans(spans)[0].attributes.get(Telemetry.attributes.exitCode), 1, "the CLI did exit 1")
    }).pipe(Effect.provide(Scripted.layer(Script.make([
      Script.turn(Script.toolUse("Bash", { command: "ls", description: "List files" })),
      Script.turn(Script.toolUse("Bash", { command: "ls -a", description: "List all files" })),
      Script.turn("Done listing.")
    ])))))

  it.live("a 400 invalid_request: the stream completes with the error result", () =>
    Effect.gen(function*() {
      let messages: ReadonlyArray<Message> = []
      const { spans } = yield* traced(
        ClaudeCli.query("This request is rejected.").pipe(Stream.runCollect, Effect.tap((m) => Effect.sync(() => messages = m)))
      )
      const summary = Summary.summarize(messages)
      assert.deepStrictEqual([summary.completed, summary.isError, summary.success], [true, true, false])
      assert.strictEqual((summary.result as { readonly api_error_status?: unknown }).api_error_status, 400)
      assert.strictEqual(querySpans(spans)[0].attributes.get(Telemetry.attributes.exitCode), 1)
    }).pipe(Effect.provide(Scripted.layer(Script.make([
      Script.turn("never sent", { failures: [Script.invalidRequest("prompt is too long: 250000 tokens > 200000 maximum")] })
    ])))))

  it.live("failOnErrorResult: the exit after an error result fails with ErrorResultExit, after the result", () =>
    Effect.gen(function*() {
      const seen: Array<Message> = []
      const error = yield* ClaudeCli.query("This request is rejected.", { failOnErrorResult: true }).pipe(
        Stream.runForEach((m) => Effect.sync(() => void seen.push(m))),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "ErrorResultExit")
      if (error.reason._tag !== "ErrorResultExit") return
      assert.strictEqual(error.reason.exitCode, 1)
      // The result came first, and the error carries it.
      assert.strictEqual(seen.at(-1)?.type, "result")
      assert.strictEqual(error.reason.result, seen.at(-1))
      assert.include(error.message, "exited with code 1 after an error result")
    }).pipe(Effect.provide(Scripted.layer(Script.make([
      Script.turn("never sent", { failures: [Script.invalidRequest("prompt is too long: 250000 tokens > 200000 maximum")] })
    ])))))

  it.live("failOnErrorResult leaves a successful run as it is", () =>
    Effect.gen(function*() {
      const summary = yield* ClaudeCli.query("Hello", { failOnErrorResult: true }).pipe(Stream.run(Summary.sink))
      assert.isTrue(summary.success)
    }).pipe(Effect.provide(Scripted.layer(Script.make([Script.turn("Hi.")])))))

  it.live("killed mid-line over 1 MiB while paused: ProcessExited with SIGKILL", () =>
    Effect.gen(function*() {
      const server = yield* ScriptedServer.ScriptedServer
      // Paused on its first message, the consumer reads nothing more: the CLI blocks writing the big line.
      const killWhenBlocked = Effect.gen(function*() {
        const [{ pid }] = yield* FakeSpawner.spawned
        while (ScriptedServer.turnRequests(yield* server.requests).length === 0) yield* realPause(20)
        yield* untilIdle(pid)
        process.kill(pid, "SIGKILL")
      })
      let seen = 0
      const { items, exit } = yield* runToEnd(ClaudeCli.query("Say a lot").pipe(
        Stream.tap(() => seen++ === 0 ? killWhenBlocked : Effect.void)
      ))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.deepStrictEqual([reason.signal, reason.exitCode], ["SIGKILL", null])
      const cut = String(reason.cause)
      assert.match(cut, new RegExp(`^line ${items.length + 1} was cut by the kill: \\{"type":"assistant"`))
      assert.isTrue(cut.endsWith("more chars)"), "the cut line is long, and cut in the cause")
      assert.isAbove(items.length, 0)
    }).pipe(Effect.provide(spied(Script.make([Script.turn("0123456789abcdef".repeat(96 * 1024))])))))

  it.effect("Effect.timeout fails the run and leaves no claude process", () =>
    Effect.gen(function*() {
      const { fiber, pid } = yield* started((arrived) =>
        ClaudeCli.query("hi").pipe(Stream.tap(() => arrived), Stream.runDrain, Effect.timeout("1 minute"))
      )
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.isTimeoutError(Cause.squash(exit.cause)), String(exit))
      assert.isFalse(FaultCli.isAlive(pid))
    }).pipe(Effect.provide(spied(endless))))

  it.effect("Stream.timeout ends the stream and leaves no claude process", () =>
    Effect.gen(function*() {
      const { fiber, pid } = yield* started((arrived) =>
        ClaudeCli.query("hi").pipe(Stream.tap(() => arrived), Stream.timeout("1 minute"), Stream.runCollect)
      )
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isSuccess(exit), String(exit))
      assert.isFalse(FaultCli.isAlive(pid))
    }).pipe(Effect.provide(spied(endless))))

  it.live("a failure downstream fails the stream, no claude process left", () =>
    Effect.gen(function*() {
      const go = yield* Latch.make(false)
      const { fiber, pid } = yield* started((arrived) =>
        ClaudeCli.query("hi").pipe(
          Stream.tap(() => arrived),
          Stream.mapEffect((message) => Effect.andThen(go.await, message.type === "system" ? Effect.fail("boom") : Effect.succeed(message))),
          Stream.runDrain
        )
      )
      yield* go.open
      const exit = yield* Fiber.join(fiber)
      assert.deepStrictEqual(exit, Exit.fail("boom"))
      assert.isFalse(FaultCli.isAlive(pid))
    }).pipe(Effect.provide(spied(endless))))
})
