/**
 * A tool call's outcome in the filters: `tool:Bash & error` selects the Bash calls whose result failed, in
 * `Item.select`, the bin's `view` and against `stats`, on stream-json captures and on a transcript the real
 * CLI writes, checked against ids collected here from the raw JSON alone.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import * as Calls from "../../src/filter/internal/calls.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Message from "../../src/schema/Message.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import * as Scenario from "../../src/testing/Scenario.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import * as TranscriptMessages from "../../src/transcript/Messages.ts"
import * as Run from "../cli/support/Run.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { jsonlFiles, parallelBashScenario } from "../transcript/support.ts"

// The lines of a file with JSON.parse alone (lines that are not JSON left out).
const rawLines = (file: string): Array<any> =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    try {
      return line.trim() === "" ? [] : [JSON.parse(line)]
    } catch {
      return []
    }
  })

const blocksOf = (line: any): Array<any> => Array.isArray(line?.message?.content) ? line.message.content : []

// The ids of the Bash calls whose tool_result says `is_error: true`, in the order of the calls.
const failedBashCalls = (lines: ReadonlyArray<any>): Array<string> => {
  const failed = new Set(lines.flatMap(blocksOf).filter((b) => b.type === "tool_result" && b.is_error === true).map((b) => b.tool_use_id))
  return lines.flatMap(blocksOf).filter((b) => b.type === "tool_use" && b.name === "Bash" && failed.has(b.id)).map((b) => b.id)
}

const failedBash = Filter.and(Filter.toolUse("Bash", { typed: false }), Filter.error)

const streamJsonInputs = (file: string): Array<Item.Input> =>
  decodeAll(fs.readFileSync(file)).map((d) => isDecodeError(d) ? d : d.message)

const select = (inputs: Iterable<Item.Input>, filter: Filter.Filter) =>
  Effect.runSync(Stream.runCollect(Stream.fromIterable(inputs).pipe(Item.select(filter))))

const idsOf = (items: ReadonlyArray<Item.Item>) => items.map((i) => i.kind === "tool_use" ? i.id : i.kind === "tool_result" ? i.toolUseId : i.kind)

// What the bin selects, and what its `json` summary and `stats` count.
const binCounts = (file: string, filter: string) => {
  const jsonl = Run.cli(["view", "--format", "jsonl", "--filter", filter, file])
  assert.strictEqual(jsonl.status, 0, jsonl.stderr)
  assert.notInclude(jsonl.stderr, "--filter")
  const summary = Run.cli(["view", "--format", "json", "--filter", filter, file])
  const stats = Run.cli(["stats", "--format", "json", file])
  return {
    ids: jsonl.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).value.id),
    selected: JSON.parse(summary.stdout).selected.tool_use ?? 0,
    statsErrors: JSON.parse(stats.stdout).files[0].tools.Bash?.errors ?? 0
  }
}

// Lines of a made-up stream: assistant calls and user results.
const session = "s"
const calls = (...blocks: Array<{ id: string; command: string }>) => ({
  type: "assistant",
  session_id: session,
  parent_tool_use_id: null,
  message: {
    id: `m-${blocks[0]!.id}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", stop_reason: "tool_use",
    content: blocks.map(({ id, command }) => ({ type: "tool_use", id, name: "Bash", input: { command } })),
    usage: { input_tokens: 1, output_tokens: 1 }
  }
})
const results = (...blocks: Array<{ id: string; failed: boolean }>) => ({
  type: "user",
  session_id: session,
  parent_tool_use_id: null,
  message: {
    role: "user",
    content: blocks.map(({ failed, id }) => ({ type: "tool_result", tool_use_id: id, is_error: failed, content: failed ? "Exit code 1" : "ok" }))
  }
})
const decodeLines = (lines: ReadonlyArray<unknown>): Array<Item.Input> =>
  lines.map((line) => Result.getOrThrow(Message.decodeMessage(line)))

describe("a call's outcome", () => {
  describe("stream-json", () => {
    it("tool:Bash & error gives the failed Bash calls of every capture and fixture", () => {
      let found = 0
      for (const file of allStreamJsonFiles) {
        const expected = failedBashCalls(rawLines(file))
        found += expected.length
        assert.deepStrictEqual(idsOf(select(streamJsonInputs(file), failedBash)), expected, file)
        assert.deepStrictEqual(idsOf(select(streamJsonInputs(file), Result.getOrThrow(Filter.parseResult("tool:Bash & error")))), expected, file)
      }
      assert.isAtLeast(found, 10)
    })

    it("the bin's view, its summary and stats count them alike", () => {
      const file = allStreamJsonFiles.find((f) => path.basename(f).startsWith("ArturoKuang__"))!
      const expected = failedBashCalls(rawLines(file))
      assert.strictEqual(expected.length, 10)
      const counted = binCounts(file, "tool:Bash & error")
      assert.deepStrictEqual(counted, { ids: expected, selected: expected.length, statsErrors: expected.length })
    })
  })

  describe("made-up streams", () => {
    const lines = [
      calls({ id: "a", command: "cat missing" }, { id: "b", command: "ls" }, { id: "c", command: "false" }),
      results({ id: "b", failed: false }),
      results({ id: "c", failed: true }, { id: "a", failed: true }),
      calls({ id: "d", command: "sleep 100" })
    ]
    const inputs = decodeLines(lines)

    it("parallel calls of one message: only the failed ones, each when its result comes", () => {
      assert.deepStrictEqual(idsOf(select(inputs, failedBash)), ["c", "a"])
      const failedOrResult = Filter.or(failedBash, Filter.toolResult())
      assert.deepStrictEqual(idsOf(select(inputs, failedOrResult)), ["b", "c", "c", "a", "a"])
    })

    it("a call without a result is no error, and is released at the end", () => {
      assert.notInclude(idsOf(select(inputs, failedBash)), "d")
      const ok = Filter.and(Filter.toolUse("Bash", { typed: false }), Filter.not(Filter.error))
      assert.deepStrictEqual(idsOf(select(inputs, Filter.or(ok, Filter.toolResult()))), ["b", "b", "c", "a", "d"])
    })

    it("holds only the calls waiting for their results", () => {
      const held = Calls.make<undefined>(failedBash.ast)!
      const open = new Set<string>()
      for (const item of Item.fromIterable(inputs)) {
        if (item.kind === "tool_use") open.add(item.id)
        if (item.kind === "tool_result") open.delete(item.toolUseId)
        held.push(item, undefined, () => {})
        assert.strictEqual(held.held(), open.size)
      }
      held.end(() => {})
      assert.strictEqual(held.held(), 0)
    })

    it.effect("a filter that tests no outcome streams each call as it comes; one that does, at its result", () =>
      Effect.gen(function*() {
        // A stream that fails where it would go on: what is taken must come before.
        const endless = (lines: ReadonlyArray<unknown>) =>
          Stream.concat(Stream.fromIterable(decodeLines(lines)), Stream.fail("read past the lines"))
        const first = yield* endless([lines[0]]).pipe(Item.select(Filter.toolUse("Bash")), Stream.take(1), Stream.runCollect)
        assert.deepStrictEqual(idsOf(first), ["a"])
        const failed = yield* endless(lines.slice(0, 3)).pipe(Item.select(failedBash), Stream.take(2), Stream.runCollect)
        assert.deepStrictEqual(idsOf(failed), ["c", "a"])
      }))

    it("denied holds for a call whose result was refused", () => {
      const refused = {
        ...results({ id: "a", failed: true }),
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "a", is_error: true, content: "Permission to use Bash has been denied." }]
        }
      }
      const denied = decodeLines([lines[0], refused, results({ id: "b", failed: true })])
      assert.deepStrictEqual(select(denied, Filter.permissionDenied).map((i) => `${i.kind} ${idsOf([i])}`), ["tool_use a", "tool_result a"])
      assert.deepStrictEqual(idsOf(select(denied, Filter.and(Filter.toolUse(), Filter.permissionDenied))), ["a"])
      assert.deepStrictEqual(idsOf(select(denied, Filter.and(Filter.toolUse(), Filter.error, Filter.not(Filter.permissionDenied)))), ["b"])
    })
  })

  describe("a transcript the real CLI writes", () => {
    it.live("view, Item.select and stats give its failed Bash calls", () =>
      Effect.gen(function*() {
        const run = yield* Scenario.run(parallelBashScenario)
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const [file, ...others] = jsonlFiles(path.join(run.sandbox.home, ".claude", "projects"))
        assert.deepStrictEqual(others, [])
        const raw = rawLines(file!)
        const expected = failedBashCalls(raw)
        assert.strictEqual(expected.length, 1)
        // The two calls are of one API message (the CLI writes a line per block).
        const callMessages = raw.filter((l) => blocksOf(l).some((b) => b.type === "tool_use")).map((l) => l.message.id)
        assert.strictEqual(callMessages.length, 2)
        assert.strictEqual(new Set(callMessages).size, 1)

        assert.deepStrictEqual(binCounts(file!, "tool:Bash & error"), { ids: expected, selected: 1, statsErrors: 1 })
        const selected = yield* Stream.make(new Uint8Array(fs.readFileSync(file!))).pipe(
          TranscriptDecode.entries(),
          TranscriptMessages.messages(),
          Item.select(failedBash),
          Stream.runCollect
        )
        assert.deepStrictEqual(idsOf(selected), expected)
      }).pipe(Effect.provide(NodeServices.layer)), 120_000)
  })
})
