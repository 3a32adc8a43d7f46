/**
 * Views and JSON Lines output over every corpus and fixture file, against
 * values computed here from the raw JSON lines (no schema, no Item code).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Result, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Item from "../../src/filter/Item.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Views from "../../src/filter/Views.ts"
import * as ContentBlock from "../../src/schema/ContentBlock.ts"
import * as Message from "../../src/schema/Message.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, fixturesDir, readLines } from "../support/Corpus.ts"
import { selectedWithResults } from "./support.ts"
import * as fs from "node:fs"
import * as path from "node:path"

type Raw = { readonly [k: string]: any }

const inputsOf = (text: string) => decodeAll(text).map((d) => isDecodeError(d) ? d : d.message)
const inputs = (file: string) => inputsOf(fs.readFileSync(file, "utf8"))
const parsed = (texts: ReadonlyArray<string>): Array<Raw> =>
  texts.flatMap((text) => {
    try {
      return [JSON.parse(text)]
    } catch {
      return []
    }
  })
const raw = (file: string) => parsed(readLines(file).map(({ text }) => text))
const decodeBlock = Schema.decodeUnknownSync(ContentBlock.ContentBlock)
const itemStream = (file: string) => Stream.fromIterable(inputs(file)).pipe(Item.items)

const isMain = (line: Raw) => line.parent_tool_use_id == null
const blocksOf = (line: Raw): ReadonlyArray<Raw> =>
  (line.type === "assistant" || line.type === "user") && Array.isArray(line.message?.content) ? line.message.content : []
const timestamp = (line: Raw): number | undefined => {
  const ms = typeof line.timestamp === "string" ? Date.parse(line.timestamp) : Number.NaN
  return Number.isNaN(ms) ? undefined : ms
}

type Call = readonly [id: string, answered: boolean, millis: number | undefined]

/** [tool use id, answered, duration in ms] per call, in the order `toolCalls` documents; durations from timestamps, 0 without (TestClock stands still). */
const expectedCalls = (lines: ReadonlyArray<Raw>) => {
  const pending = new Map<string, Raw>()
  const out: Array<Call> = []
  let timed = 0
  for (const line of lines) {
    for (const block of blocksOf(line)) {
      if (line.type === "assistant" && block.type === "tool_use") pending.set(block.id, line)
      const use = block.type === "tool_result" ? pending.get(block.tool_use_id) : undefined
      if (use === undefined) continue
      pending.delete(block.tool_use_id)
      const [start, end] = [timestamp(use), timestamp(line)]
      if (start !== undefined && end !== undefined) timed++
      out.push([block.tool_use_id, true, start !== undefined && end !== undefined ? Math.max(0, end - start) : 0])
    }
  }
  for (const id of pending.keys()) out.push([id, false, undefined])
  return { calls: out, timed }
}

/** The main agent's text per turn: cut at each main user message or result. */
const expectedTurns = (lines: ReadonlyArray<Raw>): { turns: Array<string>; final: Option.Option<string> } => {
  const turns: Array<string> = []
  let turn: Array<string> = []
  let last = Option.none<string>()
  let answer = Option.none<string>()
  for (const line of lines) {
    if (!isMain(line)) continue
    if (line.type === "assistant") {
      turn.push(...blocksOf(line).filter((b) => b.type === "text").map((b) => b.text as string))
    } else if (line.type === "user" || line.type === "result") {
      if (turn.length > 0) {
        turns.push(turn.join("\n"))
        last = Option.some(turn.join("\n"))
      }
      turn = []
      if (line.type === "result") {
        answer = line.subtype === "success" ? Option.some(line.result as string) : last
        last = Option.none()
      }
    }
  }
  if (turn.length > 0) turns.push(turn.join("\n"))
  return { turns, final: turn.length > 0 ? Option.some(turn.join("\n")) : Option.orElse(last, () => answer) }
}

describe("views", () => {
  it("the corpus and fixtures have timestamped tool calls and error results", () => {
    const all = allStreamJsonFiles.map(raw)
    assert.isAbove(all.reduce((n, lines) => n + expectedCalls(lines).timed, 0), 20)
    assert.isAtLeast(all.filter((lines) => lines.some((l) => l.type === "result" && l.subtype !== "success")).length, 4)
  })

  for (const file of allStreamJsonFiles) {
    const name = path.basename(file)
    it.effect(`toolCalls pairs uses with results and times them: ${name}`, () =>
      Effect.gen(function*() {
        const calls = yield* itemStream(file).pipe(Views.toolCalls, Stream.runCollect)
        assert.deepStrictEqual(
          calls.map((c): Call => [c.use.id, c.result !== undefined, c.duration === undefined ? undefined : Duration.toMillis(c.duration)]),
          expectedCalls(raw(file)).calls
        )
        for (const call of calls) {
          if (call.result === undefined) continue
          assert.strictEqual(call.result.toolUseId, call.use.id)
          assert.strictEqual(call.result.toolName, call.use.name)
        }
      }))

    it.effect(`textOnly cuts turns, finalText answers the last run: ${name}`, () =>
      Effect.gen(function*() {
        const { final, turns } = expectedTurns(raw(file))
        assert.deepStrictEqual(yield* itemStream(file).pipe(Views.textOnly, Stream.runCollect), turns)
        assert.deepStrictEqual(yield* Views.finalText(itemStream(file)), final)
      }))

    it.effect(`errorsOnly: ${name}`, () =>
      Effect.gen(function*() {
        const errors = yield* itemStream(file).pipe(Views.errorsOnly, Stream.runCollect)
        assert.deepStrictEqual(errors, selectedWithResults(Item.fromIterable(inputs(file)), Filter.error))
      }))

    it(`toJson gives the wire value and the envelope: ${name}`, () => {
      const records = decodeAll(fs.readFileSync(file))
      const items = Item.fromIterable(records.map((d) => isDecodeError(d) ? d : d.message))
      for (const item of items) {
        const record = records[item.messageIndex]
        if (item.kind === "decode_failure" || isDecodeError(record)) continue
        const wire = JSON.parse(record.raw)
        const json = Item.toJson(item, wire)
        const content = wire.message?.content
        const value = item.blockIndex === undefined
          ? wire
          : typeof content === "string"
          ? { type: "text", text: content }
          : content[item.blockIndex]
        assert.deepStrictEqual(JSON.parse(JSON.stringify(json)), {
          kind: item.kind,
          session_id: wire.session_id ?? null,
          parent_tool_use_id: wire.parent_tool_use_id ?? null,
          message_index: item.messageIndex,
          block_index: item.blockIndex ?? null,
          value
        })
        // Without the line (or with another message's), the value is re-encoded: it decodes to the same message or block.
        const encoded = Item.toJson(item).value
        if (item.blockIndex === undefined) {
          assert.deepStrictEqual(Result.getOrThrow(Message.decodeMessage(encoded)), item.message)
          assert.deepStrictEqual(Item.toJson(item, { type: "other" }).value, encoded)
        } else {
          assert.deepStrictEqual(decodeBlock(encoded), item.block)
          assert.deepStrictEqual(Item.toJson(item, { ...wire, message: { content: [] } }).value, encoded)
        }
      }
    })
  }

  it("toJson keeps what the schemas do not know, which re-encoding drops", () => {
    const file = path.join(fixturesDir, "recorded", "read_file.jsonl")
    const lines = readLines(file).map(({ text }) => JSON.parse(text))
    // A newer CLI's fields: one on every line, one on every content block.
    const future = lines.map((line) => ({
      ...line,
      future_line_field: { at: line.type },
      ...(Array.isArray(line.message?.content)
        ? { message: { ...line.message, content: line.message.content.map((b: object) => ({ ...b, future_block_field: 1 })) } }
        : {})
    }))
    const messages = future.map((line) => Result.getOrThrow(Message.decodeMessage(line)))
    const items = Item.fromIterable(messages)
    assert.isAbove(items.filter((item) => item.blockIndex !== undefined).length, 2)
    for (const item of items) {
      const wire = future[item.messageIndex]
      const value = Item.toJson(item, wire).value as { future_line_field?: unknown; future_block_field?: unknown }
      const reencoded = Item.toJson(item).value as typeof value
      if (item.blockIndex === undefined) {
        assert.deepStrictEqual(value, wire)
        assert.isUndefined(reencoded.future_line_field)
      } else {
        assert.deepStrictEqual(value, wire.message.content[item.blockIndex])
        assert.strictEqual(value.future_block_field, 1)
        assert.isUndefined(reencoded.future_block_field)
      }
    }
  })

  it.effect("toolCalls times calls without timestamps by arrival", () =>
    Effect.gen(function*() {
      const file = allStreamJsonFiles.find((f) => {
        const lines = raw(f)
        return !lines.some((l) => timestamp(l) !== undefined) && expectedCalls(lines).calls.some(([, answered]) => answered)
      })!
      const items = Item.fromIterable(inputs(file))
      // Item i arrives i + 1 seconds in.
      const fiber = yield* Stream.fromIterable(items).pipe(
        Stream.mapEffect((item) => Effect.as(Effect.sleep("1 second"), item)),
        Views.toolCalls,
        Stream.runCollect,
        Effect.forkChild
      )
      yield* TestClock.adjust(`${items.length + 1} seconds`)
      const calls = yield* Fiber.join(fiber)
      const answered = calls.filter((c) => c.result !== undefined)
      assert.isAbove(answered.length, 0)
      for (const call of answered) {
        const seconds = items.indexOf(call.result!) - items.indexOf(call.use)
        assert.deepStrictEqual(call.duration, Duration.seconds(seconds))
      }
    }))

  describe("finalText answers the last run", () => {
    const session = readLines(path.join(fixturesDir, "recorded", "stream_json_session.jsonl")).map(({ text }) => text)
    const errorResult = readLines(path.join(fixturesDir, "recorded", "error_max_turns.jsonl")).map(({ text }) => text)
      .find((text) => JSON.parse(text).type === "result")!
    const finalOf = (lines: ReadonlyArray<string>) => Views.finalText(Stream.fromIterable(inputsOf(lines.join("\n"))).pipe(Item.items))
    // Three runs: text, result; their result texts.
    const results = parsed(session).filter((l) => l.type === "result").map((l) => l.result as string)

    it.effect("a success: its result text", () =>
      Effect.gen(function*() {
        assert.strictEqual(session.length, 9)
        assert.deepStrictEqual(yield* finalOf(session), Option.some(results[2]))
      }))

    it.effect("an error after text: that run's last text", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* finalOf([...session.slice(0, 8), errorResult]), Option.some("Your name is Ada."))
      }))

    it.effect("an error without text: none", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* finalOf([...session.slice(0, 7), errorResult]), Option.none())
      }))

    it.effect("a stream cut before its result: the text after it", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* finalOf(session.slice(0, 8)), Option.some("Your name is Ada."))
        assert.deepStrictEqual(yield* finalOf(session.slice(0, 7)), Option.some(results[1]))
        assert.deepStrictEqual(yield* finalOf(session.slice(0, 1)), Option.none())
      }))
  })
})
