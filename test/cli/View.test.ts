import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import * as Pretty from "../../src/cli/Pretty.ts"
import * as Style from "../../src/cli/Style.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"

const snapshots = path.resolve(import.meta.dirname, "..", "..", "fixtures", "snapshots")

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

describe("view --format pretty", () => {
  it("has corpus and fixture files to check", () => {
    expect(allStreamJsonFiles.length).toBeGreaterThan(28)
  })

  for (const file of allStreamJsonFiles) {
    const name = path.basename(file, ".jsonl")
    it(`matches the reviewed snapshot: ${name}`, async () => {
      const messages = readLines(file).map((l) => parse(l.text))
      const out = Pretty.renderAll(messages, Style.plain)
      await expect(out).toMatchFileSnapshot(path.join(snapshots, `${name}.txt`))
    })

    it(`shows each tool call exactly once: ${name}`, () => {
      const lines = readLines(file).map((l) => parse(l.text) as any)
      const ids = new Set<string>()
      for (const m of lines) {
        if (m?.type !== "assistant" || !Array.isArray(m.message?.content)) continue
        for (const b of m.message.content) if (b?.type === "tool_use") ids.add(b.id)
      }
      const out = Pretty.renderAll(lines, Style.plain)
      const toolLines = out.split("\n").filter((l) => /^\s*● /.test(l))
      expect(toolLines.length).toBe(ids.size)
    })

    it(`ends with a closing line that carries the result's figures: ${name}`, () => {
      const lines = readLines(file).map((l) => parse(l.text) as any)
      const results = lines.filter((m) => m?.type === "result")
      const out = Pretty.renderAll(lines, Style.plain)
      const closing = out.split("\n").filter((l) => /^Session (complete|failed)/.test(l))
      expect(closing.length).toBe(results.length)
      results.forEach((r, i) => {
        if (typeof r.num_turns === "number") expect(closing[i]).toContain(`${r.num_turns} turn`)
        if (typeof r.total_cost_usd === "number") expect(closing[i]).toContain(Pretty.dollars(r.total_cost_usd))
        expect(closing[i]!.startsWith("Session complete")).toBe(r.subtype === "success" && r.is_error !== true)
      })
    })
  }

  it("streams text from deltas and never repeats it from the complete message", () => {
    const id = "msg_1"
    const messages = [
      { type: "stream_event", event: { type: "message_start", message: { id } } },
      { type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } } },
      { type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } } },
      { type: "assistant", message: { id, content: [{ type: "text", text: "Hello" }] } }
    ]
    const out = Pretty.renderAll(messages, Style.plain)
    expect(out.match(/Hello/g)?.length).toBe(1)
  })
})
