import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as DecodeErrors from "../../src/stream/DecodeError.ts"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Decode from "../../src/stream/Decode.ts"
import * as Summary from "../../src/stream/Summary.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { byteStream, referenceLines, utf8 } from "./support.ts"

type Json = { readonly [k: string]: any }

const summarizeFile = (bytes: Uint8Array) =>
  Effect.runSync(byteStream([bytes]).pipe(Decode.messages({ onBadLine: "emit" }), Stream.run(Summary.sink)))

/** Text of the last main-thread assistant API message, its lines joined; computed from the raw JSON. */
const lastAssistantText = (raw: ReadonlyArray<Json>): string => {
  let id: string | undefined
  let text: Array<string> = []
  for (const j of raw) {
    if (j.type !== "assistant" || (j.parent_tool_use_id ?? null) !== null) continue
    const t = (j.message.content as Array<Json>).filter((b) => b.type === "text").map((b) => b.text as string)
    if (t.length === 0 || t.join("\n").length === 0) continue
    if (j.message.id !== id) text = []
    id = j.message.id
    text.push(t.join("\n"))
  }
  return text.join("\n")
}

describe("Summary", () => {
  for (const file of allStreamJsonFiles) {
    it(`${path.basename(file)}: matches the result line's figures`, () => {
      const bytes = new Uint8Array(fs.readFileSync(file))
      const raw: Array<Json> = referenceLines(new TextDecoder().decode(bytes)).map((l) => JSON.parse(l.text))
      const summary = summarizeFile(bytes)
      const result = raw.findLast((j) => j.type === "result")
      assert.strictEqual(summary.messageCount, raw.length)
      assert.strictEqual(summary.decodeErrorCount, 0)
      assert.strictEqual(summary.model, raw.findLast((j) => j.type === "system" && j.subtype === "init")?.model)
      assert.deepStrictEqual(summary, Summary.summarize(Decode.decodeAll(bytes).map((r) => DecodeErrors.isDecodeError(r) ? r : r.message)))
      if (result === undefined) {
        assert.isFalse(summary.completed)
        assert.isFalse(summary.success)
        assert.strictEqual(summary.subtype, undefined)
        assert.strictEqual(summary.finalText, lastAssistantText(raw))
        return
      }
      assert.isTrue(summary.completed)
      assert.strictEqual(summary.subtype, result.subtype)
      assert.strictEqual(summary.isError, result.is_error)
      assert.strictEqual(summary.success, result.subtype === "success" && result.is_error === false)
      assert.strictEqual(summary.totalCostUsd, result.total_cost_usd)
      // Turns and wall time are each run's own: the session's runs add up. API time, cost and usage per model
      // are running totals: the last result's.
      const results = raw.filter((j) => j.type === "result")
      const runs = results.slice(results.findLastIndex((r) => r.session_id !== result.session_id) + 1)
      assert.strictEqual(summary.runs, runs.length)
      assert.strictEqual(summary.durationMs, runs.reduce((ms, r) => ms + r.duration_ms, 0))
      assert.strictEqual(summary.durationApiMs, result.duration_api_ms)
      assert.strictEqual(summary.numTurns, runs.reduce((n, r) => n + r.num_turns, 0))
      assert.strictEqual(summary.sessionId, result.session_id)
      assert.deepStrictEqual(
        Object.fromEntries(Object.entries(summary.modelUsage).map(([m, u]) => [m, [u.costUSD, u.inputTokens, u.outputTokens]])),
        Object.fromEntries(
          Object.entries((result.modelUsage ?? {}) as Json).map(([m, u]) => [m, [u.costUSD, u.inputTokens, u.outputTokens]])
        )
      )
      assert.strictEqual(summary.usage?.output_tokens, result.usage.output_tokens)
      assert.deepStrictEqual(
        summary.permissionDenials.map((d) => [d.tool_name, d.tool_use_id]),
        ((result.permission_denials ?? []) as Array<Json>).map((d) => [d.tool_name, d.tool_use_id])
      )
      assert.deepStrictEqual(summary.errors, result.errors ?? [])
      const expectedText = typeof result.result === "string" && result.result.length > 0
        ? result.result
        : lastAssistantText(raw)
      assert.strictEqual(summary.finalText, expectedText)
      if (summary.success && raw.some((j) => j.type === "assistant")) assert.isAbove(summary.finalText.length, 0)
    })
  }

  // A system line of a subtype this version does not know: an UnknownMessage that still names the session.
  const init = { type: "system", subtype: "not_yet_known", session_id: "s1", uuid: "u" }
  const assistant = (id: string, text: string) => ({
    type: "assistant",
    session_id: "s1",
    parent_tool_use_id: null,
    message: { id, role: "assistant", model: "m", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } }
  })
  const result = (text: string) => ({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 10,
    duration_api_ms: 5,
    num_turns: 1,
    result: text,
    session_id: "s1",
    total_cost_usd: 0.5,
    usage: { input_tokens: 1, output_tokens: 2 }
  })
  const lines = (...values: Array<unknown>) => utf8(values.map((v) => typeof v === "string" ? v : JSON.stringify(v)).join("\n"))

  it("an empty result text falls back to the last assistant text", () => {
    const s = summarizeFile(lines(init, assistant("a", "first"), assistant("b", "part one"), assistant("b", "part two"), result("")))
    assert.strictEqual(s.finalText, "part one\npart two")
    assert.isTrue(s.success)
    assert.strictEqual(s.totalCostUsd, 0.5)
  })

  it("counts in-band decode failures", () => {
    const s = summarizeFile(lines(init, "oops", result("done")))
    assert.strictEqual(s.decodeErrorCount, 1)
    assert.strictEqual(s.messageCount, 2)
    assert.strictEqual(s.finalText, "done")
  })

  it("without a result: not completed, session id from the messages", () => {
    const s = Summary.summarize([])
    assert.isFalse(s.completed)
    assert.strictEqual(s.finalText, "")
    assert.strictEqual(summarizeFile(lines(init)).sessionId, "s1")
  })
})
