/**
 * `error` over lenient streams: every corpus and fixture file with four bad
 * lines spliced in (one per DecodeError reason), decoded from bytes by
 * `Decode.messages({ onBadLine: "emit" })`, flattened by `Item.items`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as DecodeErrors from "../../src/stream/DecodeError.ts"
import { Effect, Result, Stream } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Views from "../../src/filter/Views.ts"
import * as Decode from "../../src/stream/Decode.ts"
import type { Reason } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"
import { selectedWithResults } from "./support.ts"
import * as path from "node:path"

const encoder = new TextEncoder()
const newline = encoder.encode("\n")

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => Buffer.concat(parts)

/** The file's lines with one bad line of each reason spliced in; where each bad line went (0-based). */
const spliced = (file: string) => {
  const good = readLines(file).map(({ text }) => encoder.encode(text))
  const maxLineBytes = Math.max(...good.map((l) => l.length)) + 1
  const bad: ReadonlyArray<readonly [Reason["_tag"], Uint8Array]> = [
    ["InvalidJson", encoder.encode("{\"type\":\"assistant\",")],
    ["SchemaMismatch", encoder.encode("{\"type\":\"user\",\"message\":\"not an object\"}")],
    ["LineTooLong", encoder.encode(JSON.stringify({ type: "system", subtype: "x", pad: "x".repeat(maxLineBytes) }))],
    ["InvalidUtf8", concat([encoder.encode("{\"type\":\"system\",\"subtype\":\""), new Uint8Array([0xff, 0xfe]), encoder.encode("\"}")])]
  ]
  // First, second, middle and last place among the good lines.
  const at = [0, 1, Math.floor(good.length / 2), good.length].map((p, i) => p + i)
  const lines: Array<Uint8Array> = [...good]
  bad.forEach(([, bytes], i) => lines.splice(at[i], 0, bytes))
  return {
    bytes: concat(lines.flatMap((l) => [l, newline])),
    maxLineBytes,
    reasons: bad.map(([reason]) => reason),
    at,
    goodLines: good.length
  }
}

const itemsOf = (bytes: Uint8Array, maxLineBytes: number) =>
  Stream.make(bytes).pipe(Decode.messages({ onBadLine: "emit", maxLineBytes }), Item.items, Stream.runCollect)

const parse = (text: string) => Result.getOrThrow(Filter.parseResult(text))

describe("error selects decode failures", () => {
  for (const file of allStreamJsonFiles) {
    it.effect(path.basename(file), () =>
      Effect.gen(function*() {
        const { at, bytes, goodLines, maxLineBytes, reasons } = spliced(file)
        const clean = Item.fromIterable(readLines(file).map(({ text }) => {
          const [decoded] = Decode.decodeAll(text)
          return DecodeErrors.isDecodeError(decoded) ? decoded : decoded.message
        }))
        const items = yield* itemsOf(bytes, maxLineBytes)
        const failures = items.filter((i): i is Item.DecodeFailureItem => i.kind === "decode_failure")

        assert.deepStrictEqual(failures.map((f) => f.error.reason._tag), reasons)
        assert.deepStrictEqual(failures.map((f) => f.messageIndex), at)
        assert.deepStrictEqual(failures.map((f) => f.error.line), at.map((i) => i + 1))
        assert.strictEqual(items.length, clean.length + reasons.length)
        assert.strictEqual(new Set(items.map((i) => i.messageIndex)).size, goodLines + reasons.length)

        const errors = items.filter(Filter.error)
        assert.strictEqual(errors.length, clean.filter(Filter.error).length + reasons.length)
        for (const f of failures) assert.isTrue(errors.includes(f))
        assert.deepStrictEqual(items.filter(parse("error")), errors)
        // The view also has the failed calls, each just before its result.
        assert.deepStrictEqual(
          yield* Stream.fromIterable(items).pipe(Views.errorsOnly, Stream.runCollect),
          selectedWithResults(items, Filter.error)
        )

        assert.deepStrictEqual(items.filter(Filter.messageType("decode_failure")), failures)
        assert.deepStrictEqual(items.filter(parse("type:decode_failure")), failures)
        assert.deepStrictEqual(items.filter(parse("type:decode_failure & error")), failures)

        const rest = items.filter(Filter.not(Filter.error))
        assert.strictEqual(rest.length, items.length - errors.length)
        assert.isFalse(rest.some((i) => i.kind === "decode_failure"))
        assert.deepStrictEqual(items.filter(parse("not error")), rest)
        assert.deepStrictEqual(items.filter(parse("!type:decode_failure")).length, clean.length)
        // A decode failure is no block, message or subagent item.
        assert.deepStrictEqual(items.filter(parse("type:decode_failure & (text | tool | result | system | subagent)")), [])
      }))
  }

  it.effect("a decode failure as JSON Lines: its line, reason, detail and raw text", () =>
    Effect.gen(function*() {
      const { bytes, maxLineBytes } = spliced(allStreamJsonFiles[0])
      const items = yield* itemsOf(bytes, maxLineBytes)
      const [first] = items.filter(Filter.messageType("decode_failure"))
      assert.deepStrictEqual(Item.toJson(first), {
        kind: "decode_failure",
        session_id: null,
        parent_tool_use_id: null,
        message_index: 0,
        block_index: null,
        value: { line: 1, reason: "InvalidJson", detail: (first as Item.DecodeFailureItem).error.detail, raw: "{\"type\":\"assistant\"," }
      })
    }))
})
