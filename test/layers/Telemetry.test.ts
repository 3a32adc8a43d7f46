/**
 * Spans and metrics of queries, captured with a test tracer and a fresh metric registry, over every
 * recording (Fixture layer) and over fake processes (exit codes).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Telemetry from "../../src/Telemetry.ts"
import { AssistantMessage } from "../../src/schema/Message.ts"
import * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import { allStreamJsonFiles, fixturesDir, readLines } from "../support/Corpus.ts"
import { querySpans, traced } from "./support.ts"

const { attributes: A } = Telemetry

const drain = ClaudeCli.query("p", { onBadLine: "emit" }).pipe(Stream.runDrain)

const toolSpans = (spans: ReadonlyArray<Tracer.NativeSpan>) => spans.filter((s) => s.name.startsWith(Telemetry.toolSpanPrefix))

// What the raw JSON of a recording says, independently of the decoder.
const expected = (file: string) => {
  const json = readLines(file).flatMap(({ text }) => {
    try {
      return [JSON.parse(text)]
    } catch {
      return []
    }
  })
  const content = (type: string) =>
    json.filter((m) => m?.type === type && Array.isArray(m.message?.content)).flatMap((m) =>
      m.message.content.map((block: any) => ({ block, parent: m.parent_tool_use_id ?? null }))
    )
  const uses = new Map<string, { name: string; parent: string | null }>()
  for (const { block, parent } of content("assistant")) {
    if (block?.type === "tool_use" && !uses.has(block.id)) uses.set(block.id, { name: block.name, parent })
  }
  const results = new Map<string, boolean>()
  for (const { block } of content("user")) {
    if (block?.type === "tool_result" && !results.has(block.tool_use_id)) results.set(block.tool_use_id, block.is_error === true)
  }
  const init = json.find((m) => m?.type === "system" && m.subtype === "init")
  // The last result: a session's results carry running totals.
  const result = json.findLast((m) => m?.type === "result")
  // Turns are each run's own: the process's runs add up.
  const turns = json.filter((m) => m?.type === "result").reduce((n, m) => n + m.num_turns, 0)
  return { uses, results, init, result, turns }
}

// A recording as the CLI would write it one line per read: a tool call and its result then never share a
// chunk (read whole, a small recording is one chunk).
const linePerRead = (file: string) =>
  Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout: readLines(file).map(({ text }) => text + "\n") })))

describe("Telemetry", () => {
  for (const file of allStreamJsonFiles) {
    for (const [reads, layer] of [["whole", Fixture.layer], ["one line per read", linePerRead]] as const) {
      it.effect(`spans and metrics of ${path.basename(file)} (${reads})`, () =>
        Effect.gen(function*() {
          const { spans, counter } = yield* traced(Effect.provide(drain, layer(file)))
          const want = expected(file)
          const [query] = querySpans(spans)
          assert.strictEqual(querySpans(spans).length, 1)
          assert.strictEqual(query.status._tag, "Ended")
          if (want.init !== undefined) {
            assert.strictEqual(query.attributes.get(A.model), want.init.model)
            assert.strictEqual(query.attributes.get(A.sessionId), want.result?.session_id ?? want.init.session_id)
          }
          if (want.result !== undefined && typeof want.result.num_turns === "number") {
            assert.strictEqual(query.attributes.get(A.turns), want.turns)
            assert.strictEqual(query.attributes.get(A.costUsd), want.result.total_cost_usd)
            assert.strictEqual(query.attributes.get(A.subtype), want.result.subtype)
          }
          // One child span per tool call, under the query or the subagent call that made it, all ended.
          const tools = toolSpans(spans)
          assert.strictEqual(tools.length, want.uses.size)
          for (const span of tools) {
            const id = span.attributes.get(A.toolUseId) as string
            const use = want.uses.get(id)!
            assert.strictEqual(span.name, Telemetry.toolSpanPrefix + use.name)
            const parent = Option.getOrUndefined(span.parent)
            const parentSpan = use.parent === null || !want.uses.has(use.parent)
              ? query
              : tools.find((t) => t.attributes.get(A.toolUseId) === use.parent)
            assert.strictEqual(parent, parentSpan)
            assert.strictEqual(span.status._tag, "Ended")
            assert.strictEqual(span.attributes.get(A.toolIsError), want.results.get(id))
          }
          for (const [model, usage] of Object.entries<any>(want.result?.modelUsage ?? {})) {
            assert.strictEqual(yield* counter(Telemetry.tokens, { model, token_type: "input" }), usage.inputTokens)
            assert.strictEqual(yield* counter(Telemetry.tokens, { model, token_type: "output" }), usage.outputTokens)
            assert.strictEqual(yield* counter(Telemetry.costUsd, { model }), usage.costUSD)
          }
        }))
    }
  }

  it.effect("without modelUsage each run's usage adds up", () =>
    Effect.gen(function*() {
      const file = path.join(fixturesDir, "recorded", "stream_json_session.jsonl")
      const json = readLines(file).map(({ text }) => JSON.parse(text))
      const stripped = json.map((line) => {
        const { modelUsage: _, ...rest } = line
        return JSON.stringify(line.type === "result" ? rest : line) + "\n"
      })
      const results = json.filter((m) => m.type === "result")
      assert.isAbove(results.length, 1)
      const model = json.find((m) => m.type === "system" && m.subtype === "init").model
      const layer = Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout: stripped })))
      const { counter } = yield* traced(Effect.provide(drain, layer))
      const sum = (key: string) => results.reduce((n, r) => n + r.usage[key], 0)
      assert.strictEqual(yield* counter(Telemetry.tokens, { model, token_type: "input" }), sum("input_tokens"))
      assert.strictEqual(yield* counter(Telemetry.tokens, { model, token_type: "output" }), sum("output_tokens"))
      assert.strictEqual(yield* counter(Telemetry.costUsd, { model }), results.at(-1).total_cost_usd)
    }))

  it.effect("tool call spans; a subagent's calls nest under Task", () =>
    Effect.gen(function*() {
      const file = path.join(fixturesDir, "recorded", "subagent.jsonl")
      const { spans } = yield* traced(Effect.provide(drain, Fixture.layer(file)))
      const task = toolSpans(spans).find((s) => s.name === `${Telemetry.toolSpanPrefix}Task`)
      const bash = toolSpans(spans).find((s) => s.name === `${Telemetry.toolSpanPrefix}Bash`)
      assert.isDefined(task)
      assert.isDefined(bash)
      assert.strictEqual(Option.getOrUndefined(bash!.parent), task)
      assert.strictEqual(Option.getOrUndefined(task!.parent), querySpans(spans)[0])
    }))

  it.effect("a subagent's calls long after its Task ended still nest under it", () =>
    Effect.gen(function*() {
      // subagent.jsonl: the background Task's result (line 6) comes before its subagent's call (line 8); in
      // between, 300 calls of the main agent, each ended at once: the Task is then no longer held whole.
      const lines = readLines(path.join(fixturesDir, "recorded", "subagent.jsonl")).map(({ text }) => JSON.parse(text))
      const call = lines[7]
      const result = lines[9]
      const others = Array.from({ length: 300 }, (_, i) => {
        const id = `toolu_main_${i}`
        return [
          { ...call, parent_tool_use_id: null, message: { ...call.message, content: [{ ...call.message.content[0], id }] } },
          { ...result, parent_tool_use_id: null, message: { ...result.message, content: [{ ...result.message.content[0], tool_use_id: id }] } }
        ]
      }).flat()
      const stdout = [...lines.slice(0, 6), ...others, ...lines.slice(6)].map((line) => JSON.stringify(line) + "\n")
      const layer = Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout })))
      const { spans } = yield* traced(Effect.provide(drain, layer))
      const tools = toolSpans(spans)
      assert.strictEqual(tools.length, 302)
      const task = tools.find((s) => s.name === `${Telemetry.toolSpanPrefix}Task`)!
      const late = tools.find((s) => s.attributes.get(A.toolUseId) === call.message.content[0].id)!
      const parent = Option.getOrThrow(late.parent)
      assert.strictEqual(parent.spanId, task.spanId)
      assert.strictEqual(parent.traceId, task.traceId)
      for (const span of tools.filter((s) => s !== late)) assert.strictEqual(Option.getOrThrow(span.parent), querySpans(spans)[0])
    }))

  it.effect("the exit code goes on the query span", () =>
    Effect.gen(function*() {
      const lines = fs.readFileSync(path.join(fixturesDir, "recorded", "simple_hello.jsonl"), "utf8")
      const run = (reply: FakeSpawner.Reply) =>
        traced(Effect.provide(drain, Live.layerWith().pipe(Layer.provide(FakeSpawner.layer(reply)))))
      const ok = yield* run({ stdout: lines })
      const failed = yield* run({ stdout: lines, exitCode: 7 })
      assert.strictEqual(querySpans(ok.spans)[0].attributes.get(A.exitCode), 0)
      assert.strictEqual(querySpans(failed.spans)[0].attributes.get(A.exitCode), 7)
    }))

  it.effect("an error result with exit 1 completes; subtype and code on the span", () =>
    Effect.gen(function*() {
      const lines = fs.readFileSync(path.join(fixturesDir, "recorded", "error_max_turns.jsonl"), "utf8")
      const fake = Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout: lines, exitCode: 1 })))
      let completed = false
      const { spans } = yield* traced(Effect.provide(drain.pipe(Effect.tap(() => Effect.sync(() => completed = true))), fake))
      const [query] = querySpans(spans)
      assert.isTrue(completed, "the stream ended without an error")
      assert.strictEqual(query.attributes.get(A.exitCode), 1)
      assert.strictEqual(query.attributes.get(A.subtype), "error_max_turns")
      assert.strictEqual(query.attributes.get(A.isError), true)
      assert.strictEqual(query.status._tag === "Ended" && query.status.exit._tag, "Success")
    }))

  it.effect("an interrupted run ends its open tool spans", () =>
    Effect.gen(function*() {
      const file = path.join(fixturesDir, "recorded", "complex_tool_chain.jsonl")
      const firstToolUse = ClaudeCli.query("p").pipe(
        Stream.takeUntil((m) => m instanceof AssistantMessage && m.content.some((b) => b.type === "tool_use")),
        Stream.runDrain
      )
      // One line per read, so the run stops right after the first tool call.
      const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => l + "\n")
      const fake = Live.layerWith().pipe(Layer.provide(FakeSpawner.layer({ stdout: lines })))
      const { spans } = yield* traced(Effect.provide(firstToolUse, fake))
      const tools = toolSpans(spans)
      assert.strictEqual(tools.length, 1)
      assert.strictEqual(tools[0].status._tag, "Ended")
      assert.isUndefined(tools[0].attributes.get(A.toolIsError))
    }))
})
