import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Views from "../../src/filter/Views.ts"
import { decodeAll, isDecodeError } from "../../src/stream/Decode.ts"
import { Message } from "../../src/schema/Message.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import { Schema } from "effect"

const inputs = (file: string) => decodeAll(fs.readFileSync(file)).map((d) => isDecodeError(d) ? d : d.message)
const raw = (file: string) =>
  readLines(file).flatMap(({ text }) => {
    try {
      return [JSON.parse(text)]
    } catch {
      return []
    }
  })

describe("views", () => {
  for (const file of allStreamJsonFiles) {
    const name = path.basename(file)
    it.effect(`toolCalls pairs every tool use with its result: ${name}`, () =>
      Effect.gen(function*() {
        const lines = raw(file)
        const uses = lines.flatMap((l) => l.type === "assistant" ? l.message.content.filter((b: any) => b.type === "tool_use") : [])
        const answered = new Set(lines.flatMap((l) =>
          l.type === "user" && Array.isArray(l.message.content)
            ? l.message.content.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id)
            : []
        ))
        const calls = yield* Stream.fromIterable(inputs(file)).pipe(Item.items, Views.toolCalls, Stream.runCollect)
        assert.strictEqual(calls.length, uses.length)
        assert.strictEqual(calls.filter((c) => c.result !== undefined).length, uses.filter((u: any) => answered.has(u.id)).length)
        for (const call of calls) {
          if (call.result === undefined) continue
          assert.strictEqual(call.result.toolUseId, call.use.id)
          assert.strictEqual(call.result.toolName, call.use.name)
          assert.isDefined(call.duration)
        }
      }))

    it.effect(`finalText and textOnly: ${name}`, () =>
      Effect.gen(function*() {
        const lines = raw(file)
        const results = lines.filter((l) => l.type === "result" && typeof l.result === "string" && l.subtype === "success")
        const final = yield* Stream.fromIterable(inputs(file)).pipe(Item.items, Views.finalText)
        if (results.length > 0) assert.deepStrictEqual(final, Option.some(results[results.length - 1].result))
        const turns = yield* Stream.fromIterable(inputs(file)).pipe(Item.items, Views.textOnly, Stream.runCollect)
        const mainText = lines.flatMap((l) =>
          l.type === "assistant" && l.parent_tool_use_id == null
            ? l.message.content.filter((b: any) => b.type === "text").map((b: any) => b.text)
            : []
        )
        // Every main text block lands in exactly one turn, in order.
        assert.strictEqual(turns.join("\n"), mainText.join("\n"))
        const errors = yield* Stream.fromIterable(inputs(file)).pipe(Item.items, Views.errorsOnly, Stream.runCollect)
        assert.strictEqual(errors.length, Item.fromIterable(inputs(file)).filter(Filter.error).length)
      }))
  }

  it("toJson gives the wire value and the envelope", () => {
    const encode = Schema.encodeSync(Message)
    for (const file of allStreamJsonFiles) {
      const messages = inputs(file)
      for (const item of Item.fromIterable(messages)) {
        const json = Item.toJson(item)
        assert.strictEqual(json.kind, item.kind)
        assert.strictEqual(json.message_index, item.messageIndex)
        if (item.kind === "decode_failure") continue
        const wire = encode(messages[item.messageIndex] as any) as any
        if (item.blockIndex === undefined) {
          assert.deepStrictEqual(json.value, wire)
          assert.isNull(json.block_index)
        } else if (typeof wire.message.content !== "string") {
          assert.deepStrictEqual(json.value, wire.message.content[item.blockIndex])
        }
        assert.doesNotThrow(() => JSON.stringify(json))
      }
    }
  })
})
