/**
 * Many runs at once: every run completes with the summary its transcript gives (computed here from the raw
 * JSON, independently of the decoder), and nothing is left behind: no fiber still running, no child
 * process, no extra file descriptor. Titles read "<load>: <defined behaviour>".
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as Session from "../../src/session/Session.ts"
import * as Summary from "../../src/stream/Summary.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as FakeCli from "../session/support/FakeCli.ts"
import { fixturesDir } from "../support/Corpus.ts"
import { awaitGone, layer as faultLayer, runWith } from "./support/faults.ts"
import { childPids, openFds, tracked } from "./support/leaks.ts"

interface Expected {
  readonly completed: boolean
  readonly success: boolean
  readonly subtype: string | undefined
  readonly numTurns: number | undefined
  readonly totalCostUsd: number | undefined
  readonly sessionId: string | undefined
  readonly model: string | undefined
  readonly messageCount: number
  readonly decodeErrorCount: number
}

type Json = { readonly [k: string]: unknown }

/** The results of the last session: the last result and those before it with its session id, up to another session's. */
const sessionRuns = (json: ReadonlyArray<Json>): ReadonlyArray<Json> => {
  const results = json.filter((m) => m.type === "result")
  const last = results.at(-1)
  const from = results.findLastIndex((r) => r.session_id !== last?.session_id) + 1
  return results.slice(from)
}

/** The summary of a transcript read straight from its JSON lines. */
const expectedSummary = (lines: ReadonlyArray<string>): Expected & { readonly finalText: string | undefined } => {
  const json = lines.map((line) => JSON.parse(line) as Json)
  const result = json.findLast((m) => m.type === "result")
  const init = json.find((m) => m.type === "system" && m.subtype === "init")
  return {
    completed: result !== undefined,
    success: result?.subtype === "success" && result.is_error === false,
    subtype: result?.subtype as string | undefined,
    numTurns: result === undefined ? undefined : sessionRuns(json).reduce((n, r) => n + (r.num_turns as number), 0),
    totalCostUsd: result?.total_cost_usd as number | undefined,
    sessionId: result?.session_id as string | undefined,
    model: init?.model as string | undefined,
    messageCount: json.length,
    decodeErrorCount: 0,
    // Only a non-empty result text is the final text by definition; otherwise the decoder picks a fallback.
    finalText: typeof result?.result === "string" && result.result !== "" ? result.result : undefined
  }
}

const actualSummary = (messages: ReadonlyArray<Message>, withText: boolean) => {
  const s = Summary.summarize(messages)
  return {
    completed: s.completed,
    success: s.success,
    subtype: s.subtype,
    numTurns: s.numTurns,
    totalCostUsd: s.totalCostUsd,
    sessionId: s.sessionId,
    model: s.model,
    messageCount: s.messageCount,
    decodeErrorCount: s.decodeErrorCount,
    finalText: withText ? s.finalText : undefined
  }
}

/**
 * Runs `count` streams at once; each holds after its first message until all have one, so the test only
 * passes if they really are in flight together.
 */
const allAtOnce = <E, R>(count: number, stream: (i: number) => Stream.Stream<Message, E, R>) =>
  Effect.gen(function*() {
    const started = { count: 0 }
    const all = yield* Deferred.make<void>()
    return yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        stream(i).pipe(
          Stream.mapEffect((message, index) =>
            index > 0 ? Effect.succeed(message) : Effect.gen(function*() {
              if (++started.count === count) yield* Deferred.succeed(all, undefined)
              yield* Deferred.await(all)
              return message
            })
          ),
          Stream.runCollect
        ),
      { concurrency: "unbounded" }
    )
  })

const recorded = fs.readdirSync(path.join(fixturesDir, "recorded")).filter((f) => f.endsWith(".jsonl")).sort()
  .map((f) => path.join(fixturesDir, "recorded", f))
const linesOf = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "")

describe("Load", () => {
  describe("100 concurrent queries on the Fixture layer", () => {
    // Every recorded fixture in turn; queries only, as the Fixture layer refuses sessions.
    it.effect("each summary as its transcript; no fiber or fd left", () =>
      Effect.gen(function*() {
        const files = Array.from({ length: 100 }, (_, i) => recorded[i % recorded.length]!)
        const run = allAtOnce(100, (i) => Stream.provide(ClaudeCli.query(`query ${i}`), Fixture.layer(files[i]!)))
        yield* run // warm-up: modules and lazily opened handles
        const fdsBefore = openFds()
        const [outputs, fibers] = yield* tracked(run)
        assert.strictEqual(openFds(), fdsBefore, "open file descriptors")
        assert.isAtLeast(fibers.started, 100, "the fibers of the runs were counted")
        assert.strictEqual(fibers.active, 0, "fibers still running")
        outputs.forEach((messages, i) => {
          const expected = expectedSummary(linesOf(files[i]!))
          assert.isTrue(expected.completed, files[i])
          assert.deepStrictEqual(actualSummary(messages, expected.finalText !== undefined), expected, files[i])
        })
      }))
  })

  describe("100 concurrent sessions over a replaying fake CLI", () => {
    // A fake CLI at the ChildProcessSpawner seam replays the recorded session: three prompts, each its recorded turn.
    it.effect("each turn's recorded result; no fiber left", () =>
      Effect.gen(function*() {
        const file = path.join(fixturesDir, "recorded", "stream_json_session.jsonl")
        const lines = linesOf(file)
        // The recording cut after each result: turn k's lines.
        const turns = lines.reduce<Array<Array<string>>>((all, line) => {
          all.at(-1)!.push(line)
          if (JSON.parse(line).type === "result") all.push([])
          return all
        }, [[]]).filter((turn) => turn.length > 0)
        assert.strictEqual(turns.length, 3)
        const prompts = ["first", "second", "third"]
        const run = allAtOnce(100, () => {
          let answered = 0
          const fake = FakeCli.make(FakeCli.serve({ onUser: (_, io) => FakeCli.writeAll(io, turns[answered++]!) }))
          return Stream.unwrap(Effect.map(Session.make(), (session) =>
            Stream.flatMap(Stream.fromIterable(prompts), (prompt) => session.turn(prompt))
          )).pipe(Stream.provide(fake.layer))
        })
        yield* run // warm-up
        const [outputs, fibers] = yield* tracked(run)
        assert.isAtLeast(fibers.started, 100, "the fibers of the sessions were counted")
        assert.strictEqual(fibers.active, 0, "fibers still running")
        const expected = expectedSummary(lines)
        for (const messages of outputs) {
          const results = messages.filter((m) => m._tag === "ResultSuccess")
          assert.deepStrictEqual(results.map((r) => r.total_cost_usd), turns.map((t) => JSON.parse(t.at(-1)!).total_cost_usd))
          assert.deepStrictEqual(actualSummary(messages, expected.finalText !== undefined), expected)
        }
      }))
  })

  describe("100 runs, each CLI leaving a child in a session of its own that holds its pipes", () => {
    // FaultCli exits 0 after its messages; its child (setsid) holds stdout and stderr open. Ten runs at a time.
    it.live("each succeeds; fds and handles flat, no child left", () =>
      Effect.gen(function*() {
        const hello = linesOf(path.join(fixturesDir, "recorded", "simple_hello.jsonl"))
        const plan = FaultCli.plan(FaultCli.child(["stdout", "stderr"], { ownSession: true }), FaultCli.lines(hello), FaultCli.exit(0))
        const runs = (count: number) =>
          Effect.forEach(Array.from({ length: count }), () => runWith(), { concurrency: 10 }).pipe(
            Effect.provide(faultLayer(plan)),
            Effect.orDie
          )
        const warmUp = yield* runs(1) // modules and lazily opened handles
        const fdsBefore = openFds()
        const handlesBefore = process.getActiveResourcesInfo().length
        const outcomes = yield* runs(100)
        const children = outcomes.at(-1)!.children
        // Whatever a failed check leaves running goes with the test.
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => [...warmUp[0]!.children, ...children].filter(FaultCli.isAlive).forEach((pid) => process.kill(pid, "SIGKILL")))
        )
        for (const outcome of outcomes) assert.isTrue(Exit.isSuccess(outcome.exit), String(outcome.exit))
        assert.strictEqual(children.length, 100, "children started")
        // Dead by now; reaped by init (which is not this process) a moment later.
        yield* awaitGone(children, "5 seconds")
        // Flat: a timer of the warm-up may have gone since, nothing of the runs is left.
        assert.isAtMost(openFds(), fdsBefore, "open file descriptors")
        assert.isAtMost(process.getActiveResourcesInfo().length, handlesBefore, "active handles")
      }), 300_000)
  })

  describe("8 concurrent real CLI processes, one scripted server", () => {
    // A Read tool loop each: its own answer, tool result and summary; every pid gone, no child process.
    it.live("each its own answer; no pid, fiber or fd left", () =>
      Effect.gen(function*() {
        const count = 8
        const script = ({ cwd }: { readonly cwd: string }) =>
          Script.make([], {
            subagents: Array.from({ length: count }, (_, k) =>
              Script.conversation(`run-${k}`, MessagesRequest.firstUserTextIncludes(`load run ${k}.`), [
                Script.turn([Script.text(`Reading f${k}.txt.`), Script.toolUse("Read", { file_path: `${cwd}/f${k}.txt` })]),
                Script.turn(`answer ${k}`)
              ]))
          })
        const files = Object.fromEntries(Array.from({ length: count }, (_, k) => [`f${k}.txt`, `content of file ${k}\n`]))
        const layer = Scripted.layerWith(script, { files }).pipe(
          Layer.provideMerge(FakeSpawner.spy),
          Layer.provide(NodeServices.layer)
        )
        const childrenBefore = childPids()
        const fdsBefore = openFds()
        const [[outputs, spawned], fibers] = yield* tracked(
          Effect.gen(function*() {
            const outputs = yield* allAtOnce(count, (k) => ClaudeCli.query(`This is load run ${k}. Read the file.`))
            return [outputs, yield* FakeSpawner.spawned] as const
          }).pipe(Effect.provide(layer))
        )
        assert.strictEqual(spawned.length, count)
        for (const { pid } of spawned) assert.isFalse(FaultCli.isAlive(pid), `pid ${pid} is still running`)
        assert.deepStrictEqual(childPids().filter((pid) => !childrenBefore.includes(pid)), [], "child processes left")
        assert.strictEqual(openFds(), fdsBefore, "open file descriptors")
        assert.isAbove(fibers.started, count, "the fibers of the runs were counted")
        assert.strictEqual(fibers.active, 0, "fibers still running")
        outputs.forEach((messages, k) => {
          const summary = Summary.summarize(messages)
          assert.deepStrictEqual(
            [summary.completed, summary.success, summary.finalText, summary.numTurns, summary.decodeErrorCount],
            [true, true, `answer ${k}`, 2, 0],
            `run ${k}`
          )
          const results = messages.flatMap((m) => m._tag === "UserMessage" ? m.toolResults : [])
          assert.strictEqual(results.length, 1, `run ${k}: one tool result`)
          assert.include(JSON.stringify(results[0]!.content), `content of file ${k}`)
          assert.notInclude(JSON.stringify(messages), `content of file ${(k + 1) % count}`, `run ${k} saw another run's file`)
        })
        assert.strictEqual(new Set(outputs.map((m) => Summary.summarize(m).sessionId)).size, count, "one session per run")
      }))
  })
})
