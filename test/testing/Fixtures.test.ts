/**
 * The recorded fixtures match the bundled scenarios (re-record with `npm run fixtures:record`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import { fixturesDir, readLines } from "../support/Corpus.ts"

const recorded = path.join(fixturesDir, "recorded")
const readme = fs.readFileSync(path.join(fixturesDir, "README.md"), "utf8")

describe("recorded fixtures", () => {
  for (const scenario of Scenarios.all) {
    for (const file of [`${scenario.name}.jsonl`, `${scenario.name}.partial.jsonl`]) {
      it(file, () => {
        const full = path.join(recorded, file)
        if (!fs.existsSync(full)) {
          // Only a run the CLI refused outright (bypassPermissions as root) leaves no file, and says so.
          assert.include(readme, `${file} (not written: the CLI printed nothing; stderr: `)
          return
        }
        const messages = readLines(full).map(({ line, text }) => {
          try {
            return JSON.parse(text)
          } catch (e) {
            throw new Error(`${file}:${line} is not JSON: ${String(e)}`)
          }
        })
        assert.strictEqual(messages[0].type, "system")
        assert.strictEqual(messages[0].subtype, "init")
        assert.strictEqual(messages.at(-1).type, "result")
        // One result per user message; a background subagent's completion adds one more.
        assert.isAtLeast(messages.filter((m) => m.type === "result").length, scenario.input?.length ?? 1)
        const streamed = messages.some((m) => m.type === "assistant" && m.message.model !== "<synthetic>")
        assert.strictEqual(
          messages.some((m) => m.type === "stream_event"),
          file.endsWith(".partial.jsonl") && streamed
        )
        // The sandbox's random temp directory is normalized away.
        assert.notMatch(fs.readFileSync(full, "utf8"), /claude-sandbox-[A-Za-z0-9]{6}/)
        assert.include(readme, `\`${file}\``)
      })
    }
  }
})

// The text of each streamed content block: its `input_json_delta` (and text) fragments joined, per message.
const assembledBlocks = (text: string): Array<string> => {
  const blocks = new Map<string, string>()
  const messages = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue
    const m = JSON.parse(line)
    if (m.type !== "stream_event") continue
    const parent = String(m.parent_tool_use_id ?? null)
    if (m.event.type === "message_start") messages.set(parent, (messages.get(parent) ?? 0) + 1)
    const delta = m.event.delta
    if (m.event.type !== "content_block_delta") continue
    const key = `${parent}/${messages.get(parent) ?? 0}/${m.event.index}`
    blocks.set(key, (blocks.get(key) ?? "") + (delta.partial_json ?? delta.text ?? delta.thinking ?? ""))
  }
  return [...blocks.values()]
}

describe("recorded fixtures hold no random sandbox name", () => {
  it("has streamed tool inputs to check", () => {
    const all = fs.readdirSync(recorded).filter((f) => f.endsWith(".partial.jsonl"))
      .flatMap((f) => assembledBlocks(fs.readFileSync(path.join(recorded, f), "utf8")))
    assert.isAbove(all.filter((b) => b.includes("claude-sandbox")).length, 10)
  })
  for (const file of fs.readdirSync(recorded).filter((f) => f.endsWith(".partial.jsonl"))) {
    it(`in any streamed block, its fragments joined: ${file}`, () => {
      const blocks = assembledBlocks(fs.readFileSync(path.join(recorded, file), "utf8"))
      for (const block of blocks) assert.notMatch(block, /claude-sandbox-(?!work\b)[A-Za-z0-9]/, block)
    })
  }
})
