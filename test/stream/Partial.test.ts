import { assert, describe, it } from "@effect/vitest"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Message } from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { DecodeError } from "../../src/stream/DecodeError.ts"
import * as Partial from "../../src/stream/Partial.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { collect, referenceLines } from "./support.ts"

type Json = { readonly [k: string]: any }

const partialFiles = allStreamJsonFiles.filter((file) => fs.readFileSync(file, "utf8").includes("stream_event"))

const assembleAll = (messages: ReadonlyArray<Message>, cuts: ReadonlyArray<number> = []): Array<Partial.Event> => {
  const chunks: Array<ReadonlyArray<Message>> = []
  let start = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > start) chunks.push(messages.slice(start, cut))
    start = Math.max(start, cut)
  }
  chunks.push(messages.slice(start))
  const exit = collect(Stream.fromIterable(chunks).pipe(Stream.flatMap(Stream.fromIterable), Partial.assemble))
  if (!Exit.isSuccess(exit)) throw new Error(String(exit))
  return exit.value
}

/**
 * The fixtures replace the sandbox's temp directory by `/tmp/claude-sandbox` (fixtures/README.md); that
 * replacement cannot reach a path split across `input_json_delta` fragments, so the assembled input gets it here.
 */
const sandboxPaths = (input: unknown): unknown =>
  JSON.parse(JSON.stringify(input).replace(/\/tmp\/claude-sandbox-[A-Za-z0-9]+/g, "/tmp/claude-sandbox"))

/**
 * The CLI validates a tool call before writing the assistant message and fills in schema defaults the model
 * left out (Edit's `replace_all: false`); the stream events carry what the model wrote.
 */
const cliDefaults: { readonly [tool: string]: Json } = { Edit: { replace_all: false } }
const withCliDefaults = (name: string, input: unknown): unknown =>
  typeof input === "object" && input !== null && !Array.isArray(input) && cliDefaults[name] !== undefined
    ? { ...input, ...Object.fromEntries(Object.entries(cliDefaults[name]).filter(([k]) => !(k in input))) }
    : input

/** Each event is what its `Event` constructor makes of its fields: the same keys, in the same order. */
const assertConstructed = (events: ReadonlyArray<Partial.Event | DecodeError>) => {
  for (const e of events) {
    if (e instanceof DecodeError) continue
    const { _tag, ...fields } = e
    const made = (Partial.Event as unknown as Record<string, (fields: object) => Partial.Event>)[_tag]!(fields)
    assert.deepStrictEqual(Object.keys(e), Object.keys(made))
    assert.deepStrictEqual(e, made)
  }
}

describe("Partial.assemble", () => {
  it("finds partial-message files in the corpus and the fixtures", () => {
    assert.isAtLeast(partialFiles.length, 5)
  })

  // Every file: those without partial messages must pass through unchanged, nothing marked streamed.
  for (const file of allStreamJsonFiles) {
    describe(path.basename(file), () => {
      const text = fs.readFileSync(file, "utf8")
      const raw: Array<Json> = referenceLines(text).map((l) => JSON.parse(l.text))
      const messages = Decode.decodeAll(text).map((r) => {
        if (r instanceof DecodeError) throw r
        return r.message
      })
      const events = assembleAll(messages)
      // Computed from the raw JSON, independently of the library.
      const streamedIds = new Set(
        raw.filter((j) => j.type === "stream_event" && j.event?.type === "message_start").map((j) =>
          `${j.parent_tool_use_id ?? ""}/${j.event.message.id}`
        )
      )
      const assistants = raw.filter((j) => j.type === "assistant")
      const key = (j: Json) => `${j.parent_tool_use_id ?? ""}/${j.message.id}`

      it("assembled tool inputs equal the inputs the assistant messages carry", () => {
        const calls = events.filter(Partial.Event.$is("ToolCall"))
        const expected = assistants.filter((a) => streamedIds.has(key(a))).flatMap((a) =>
          (a.message.content as Array<Json>).filter((b) => b.type === "tool_use").map((b) => [b.id, b.name, b.input])
        )
        assert.deepStrictEqual(calls.map((c) => [c.id, c.name, withCliDefaults(c.name, sandboxPaths(c.input))]), expected)
        assert.deepStrictEqual(events.filter(Partial.Event.$is("ToolCallMalformed")), [])
      })

      for (const [kind, tag, field] of [["text", "TextDelta", "text"], ["thinking", "ThinkingDelta", "thinking"]] as const) {
        it(`streamed ${kind} equals the ${kind} of the assistant messages, per message`, () => {
          const live = new Map<string, string>()
          for (const e of events) {
            if (e._tag === tag) {
              const k = `${e.parentToolUseId ?? ""}/${e.messageId}`
              live.set(k, (live.get(k) ?? "") + (e as Json)[field])
            }
          }
          const full = new Map<string, string>()
          for (const a of assistants.filter((a) => streamedIds.has(key(a)))) {
            const t = (a.message.content as Array<Json>).filter((b) => b.type === kind).map((b) => b[field]).join("")
            if (t.length > 0) full.set(key(a), (full.get(key(a)) ?? "") + t)
          }
          assert.deepStrictEqual(live, full)
        })
      }

      it("deltas and unstreamed messages show each text once", () => {
        let rendered = ""
        for (const e of events) {
          if (e._tag === "TextDelta") rendered += e.text
          if (e._tag === "Message" && !e.streamed && e.message._tag === "AssistantMessage") {
            rendered += e.message.message.content.flatMap((b) => b._tag === "TextBlock" ? [b.text] : []).join("")
          }
        }
        const expected = assistants.map((a) =>
          (a.message.content as Array<Json>).filter((b) => b.type === "text").map((b) => b.text).join("")
        ).join("")
        assert.strictEqual(rendered, expected)
        const flags = events.flatMap((e) =>
          e._tag === "Message" && e.message._tag === "AssistantMessage" ? [e.streamed] : []
        )
        assert.deepStrictEqual(flags, assistants.map((a) => streamedIds.has(key(a))))
      })

      it("every non-stream_event message passes through once, in order", () => {
        const passed = events.flatMap((e) => e._tag === "Message" ? [e.message] : [])
        assert.deepStrictEqual(passed, messages.filter((m) => m._tag !== "StreamEventMessage"))
      })

      it("every event has its constructor's shape", () => {
        assertConstructed(events)
      })

      it("property: chunking does not change the events", () => {
        fc.assert(
          fc.property(fc.array(fc.integer({ min: 0, max: messages.length }), { maxLength: 10 }), (cuts) => {
            assert.deepStrictEqual(assembleAll(messages, cuts), events)
          }),
          { numRuns: 20 }
        )
      })
    })
  }

  const line = (json: Json) => JSON.stringify({ session_id: "s", uuid: "u", parent_tool_use_id: null, ...json })
  const event = (event: Json, parent: string | null = null) =>
    line({ type: "stream_event", event, parent_tool_use_id: parent })
  const start = (id: string, parent: string | null = null) =>
    event({
      type: "message_start",
      message: { id, type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 1 } }
    }, parent)
  const toolStart = (index: number, id: string, name: string, parent: string | null = null) =>
    event({ type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } }, parent)
  const json = (index: number, partial_json: string, parent: string | null = null) =>
    event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }, parent)
  const stop = (index: number, parent: string | null = null) => event({ type: "content_block_stop", index }, parent)

  const run = (lines: Array<string>) => {
    const exit = collect(Stream.make(new TextEncoder().encode(lines.join("\n"))).pipe(Decode.messages({ onBadLine: "emit" }), Partial.assemble))
    if (!Exit.isSuccess(exit)) throw new Error(String(exit))
    assertConstructed(exit.value)
    return exit.value
  }

  it("joins fragments; empty is {}; cut is ToolCallMalformed", () => {
    const events = run([
      start("m1"),
      toolStart(0, "t0", "Bash"),
      json(0, "{\"comm"),
      json(0, "and\": \"ls é\"}"),
      stop(0),
      toolStart(1, "t1", "TodoRead"),
      json(1, ""),
      stop(1),
      toolStart(2, "t2", "Read"),
      json(2, "{\"file_path\": \"/x"),
      stop(2)
    ])
    const calls = events.filter((e) => e._tag === "ToolCall" || e._tag === "ToolCallMalformed")
    assert.deepStrictEqual(calls.map((c) => c._tag === "ToolCall" ? [c.id, c.input] : [c.id, c.json]), [
      ["t0", { command: "ls é" }],
      ["t1", {}],
      ["t2", "{\"file_path\": \"/x"]
    ])
  })

  it("a tool call cut off is ToolCallMalformed", () => {
    const events = run([start("m1"), toolStart(0, "t0", "Bash"), json(0, "{\"a\""), start("m2"), toolStart(0, "t1", "Read")])
    const cut = events.filter(Partial.Event.$is("ToolCallMalformed"))
    assert.deepStrictEqual(cut.map((c) => [c.messageId, c.id, c.json]), [["m1", "t0", "{\"a\""], ["m2", "t1", ""]])
  })

  it("keeps interleaved subagent streams apart", () => {
    const events = run([
      start("main"),
      toolStart(0, "a", "Task"),
      start("sub", "a"),
      toolStart(0, "b", "Read", "a"),
      json(0, "{\"x\":", "a"),
      json(0, "{\"y\":", null),
      json(0, "1}", "a"),
      json(0, "2}", null),
      stop(0, "a"),
      stop(0)
    ])
    const calls = events.filter(Partial.Event.$is("ToolCall"))
    assert.deepStrictEqual(calls.map((c) => [c.id, c.parentToolUseId, c.messageId, c.input]), [
      ["b", "a", "sub", { x: 1 }],
      ["a", null, "main", { y: 2 }]
    ])
  })

  it("passes in-band decode failures through", () => {
    const events = run(["not json", start("m")])
    assert.strictEqual(events[0]!._tag, "DecodeError")
    assert.strictEqual(events[1]!._tag, "MessageStart")
  })
})
