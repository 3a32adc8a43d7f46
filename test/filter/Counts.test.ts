/**
 * Every atom and operator, over every corpus file and fixture, against counts
 * computed here from the raw JSON (no schema, no Item code involved).
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"
import * as fs from "node:fs"
import * as path from "node:path"

type Raw = { readonly [k: string]: any }

/** One expected item, described from the raw line only. */
interface RawItem {
  readonly type: string
  readonly kind: "text" | "thinking" | "tool_use" | "tool_result" | "other" | "system" | "result" | "stream_event"
  readonly role?: string
  readonly block?: Raw
  readonly line: Raw
  readonly toolName?: string
  readonly denied?: boolean
}

const rawItems = (file: string): { items: Array<RawItem>; badLines: number } => {
  const names = new Map<string, string>()
  const denied = new Set<string>()
  const parsed: Array<Raw> = []
  let badLines = 0
  for (const { text } of readLines(file)) {
    try {
      parsed.push(JSON.parse(text))
    } catch {
      badLines++
    }
  }
  // The result line lists the refused tool uses: an independent source for `denied`.
  for (const line of parsed) {
    for (const d of line.type === "result" ? line.permission_denials ?? [] : []) denied.add(d.tool_use_id)
  }
  const items: Array<RawItem> = []
  for (const line of parsed) {
    if (line.type === "assistant" || line.type === "user") {
      const content = line.message.content
      const blocks: Array<Raw> = typeof content === "string" ? [{ type: "text", text: content }] : content
      for (const block of blocks) {
        const kind = ["text", "thinking", "tool_use", "tool_result"].includes(block.type) ? block.type : "other"
        if (block.type === "tool_use") names.set(block.id, block.name)
        items.push({
          type: line.type,
          kind,
          role: line.type,
          block,
          line,
          toolName: block.type === "tool_result" ? names.get(block.tool_use_id) : undefined,
          denied: block.type === "tool_result" && denied.has(block.tool_use_id)
        })
      }
    } else {
      const kind = line.type === "system" || line.type === "result" || line.type === "stream_event" ? line.type : "other"
      items.push({ type: line.type, kind, line })
    }
  }
  return { items, badLines }
}

const decodedItems = (file: string): Array<Item.Item> =>
  Item.fromIterable(decodeAll(fs.readFileSync(file)).map((d) => isDecodeError(d) ? d : d.message))

const count = (items: ReadonlyArray<RawItem>, p: (i: RawItem) => boolean) => items.filter(p).length

const isRawError = (i: RawItem): boolean =>
  (i.kind === "tool_result" && i.block!.is_error === true) ||
  (i.kind === "result" && (i.line.is_error === true || i.line.subtype !== "success")) ||
  (i.kind === "system" && i.line.subtype === "api_retry") ||
  (i.type === "assistant" && typeof i.line.error === "string")

const main = (i: RawItem) => i.line.parent_tool_use_id == null

const parse = (text: string) => Result.getOrThrow(Filter.parseResult(text))

describe("filter counts over the corpus and fixtures", () => {
  it("has files to check", () => {
    assert.isAtLeast(allStreamJsonFiles.length, 28)
  })

  for (const file of allStreamJsonFiles) {
    it(path.basename(file), () => {
      const { items: raw, badLines } = rawItems(file)
      const items = decodedItems(file)
      const decodeFailures = items.filter((i) => i.kind === "decode_failure").length
      // Lines that are not JSON are decode failures; lines that are JSON become items.
      assert.isAtLeast(decodeFailures, badLines)
      assert.strictEqual(items.length - decodeFailures, raw.length - (decodeFailures - badLines), "item count")

      const expect: Array<readonly [string, number]> = [
        ["all", items.length],
        ["none", 0],
        ["text", count(raw, (i) => i.kind === "text" && i.role === "assistant")],
        ["thinking", count(raw, (i) => i.kind === "thinking" && i.role === "assistant")],
        ["tool", count(raw, (i) => i.kind === "tool_use" && i.role === "assistant")],
        ["result", count(raw, (i) => i.kind === "tool_result")],
        ["error", count(raw, isRawError) + decodeFailures],
        ["denied", count(raw, (i) => i.denied === true) + count(raw, (i) => i.kind === "system" && i.line.subtype === "permission_denied")],
        ["system", count(raw, (i) => i.kind === "system")],
        ["subagent", count(raw, (i) => !main(i))],
        ["main", count(raw, main) + decodeFailures],
        ["delta", count(raw, (i) => i.kind === "stream_event")],
        ["text & subagent", count(raw, (i) => i.kind === "text" && i.role === "assistant" && !main(i))],
        ["text | thinking", count(raw, (i) => (i.kind === "text" || i.kind === "thinking") && i.role === "assistant")],
        ["not main", count(raw, (i) => !main(i))],
        ["!(tool | result) & type:assistant", count(raw, (i) => i.type === "assistant" && i.kind !== "tool_use")],
        ["tool & main or result & subagent", count(raw, (i) =>
          (i.kind === "tool_use" && i.role === "assistant" && main(i)) || (i.kind === "tool_result" && !main(i)))]
      ]
      const toolNames = new Set(raw.flatMap((i) => i.kind === "tool_use" ? [i.block!.name as string] : []))
      for (const name of toolNames) {
        expect.push([`tool:${name}`, count(raw, (i) => i.kind === "tool_use" && i.role === "assistant" && i.block!.name === name)])
        expect.push([`result:${name}`, count(raw, (i) => i.kind === "tool_result" && i.toolName === name)])
        expect.push([`result:${name} & error`, count(raw, (i) => i.kind === "tool_result" && i.toolName === name && i.block!.is_error === true)])
        const glob = `${name.slice(0, 1)}*`
        expect.push([`tool:${glob}`, count(raw, (i) => i.kind === "tool_use" && i.role === "assistant" && i.block!.name.startsWith(name[0]))])
      }
      for (const type of new Set(raw.map((i) => i.type))) {
        expect.push([`type:${type}`, count(raw, (i) => i.type === type)])
      }
      for (const subtype of new Set(raw.flatMap((i) => i.kind === "system" ? [i.line.subtype as string] : []))) {
        expect.push([`system:${subtype}`, count(raw, (i) => i.kind === "system" && i.line.subtype === subtype)])
      }
      for (const id of new Set(raw.flatMap((i) => typeof i.line.session_id === "string" ? [i.line.session_id as string] : []))) {
        expect.push([`session:${id}`, count(raw, (i) => i.line.session_id === id)])
      }
      for (const id of new Set(raw.flatMap((i) => main(i) ? [] : [i.line.parent_tool_use_id as string]))) {
        expect.push([`task:${id}`, count(raw, (i) => i.line.parent_tool_use_id === id)])
      }
      const events = raw.filter((i) => i.kind === "stream_event").map((i) => i.line.event)
      for (const kind of new Set(events.flatMap((e) => [e.type, ...(e.delta?.type ? [e.delta.type] : [])]))) {
        expect.push([`delta:${kind}`, events.filter((e) => e.type === kind || (e.type === "content_block_delta" && e.delta.type === kind)).length])
      }
      expect.push(["delta:text", events.filter((e) => e.type === "content_block_delta" && e.delta.type === "text_delta").length])

      for (const [text, n] of expect) {
        assert.strictEqual(items.filter(parse(text)).length, n, `${text} in ${path.basename(file)}`)
      }
    })
  }

  it("counts every block once in partial-message files", () => {
    const partial = allStreamJsonFiles.filter((f) => fs.readFileSync(f, "utf8").includes("\"stream_event\""))
    assert.isAtLeast(partial.length, 1)
    for (const file of partial) {
      const { items: raw } = rawItems(file)
      const items = decodedItems(file)
      const toolUseIds = items.filter(Filter.toolUse()).map((i) => i.id)
      assert.strictEqual(new Set(toolUseIds).size, toolUseIds.length, `a tool use counted twice in ${file}`)
      assert.strictEqual(
        items.filter(Filter.text).length,
        count(raw, (i) => i.kind === "text" && i.role === "assistant")
      )
    }
  })

  it("has subagent items in the corpus", () => {
    const total = allStreamJsonFiles.reduce((n, f) => n + decodedItems(f).filter(Filter.subagent).length, 0)
    assert.isAbove(total, 0)
  })
})

// `active_goal` (a `/goal` condition set, re-evaluated or cleared) is not in the corpus: spliced into every file.
// Like every message that is neither content, system, result nor stream event, it is one whole `message` item.
// Shaped as the SDK's SDKActiveGoalMessage: a goal not met yet, then the goal met (value null).
const activeGoals = [
  {
    type: "active_goal",
    value: { condition: "all tests pass", iterations: 1, set_at: 1767225600000, tokens_at_start: 1200 },
    session_id: "goal-session",
    uuid: "6f1c1b2e-0000-4000-8000-000000000001"
  },
  { type: "active_goal", value: null, session_id: "met-session", uuid: "6f1c1b2e-0000-4000-8000-000000000002" }
]

describe("active_goal messages", () => {
  for (const file of allStreamJsonFiles) {
    it(path.basename(file), () => {
      const lines = readLines(file).map(({ text }) => text)
      const withGoals = [lines[0], ...activeGoals.map((g) => JSON.stringify(g)), ...lines.slice(1)].join("\n")
      const decoded = decodeAll(withGoals)
      const items = Item.fromIterable(decoded.map((d) => isDecodeError(d) ? d : d.message))
      const before = decodedItems(file)
      assert.strictEqual(items.length, before.length + 2)

      const goals = items.filter(parse("type:active_goal"))
      assert.deepStrictEqual(goals.map((g) => [g.kind, g.messageIndex, g.blockIndex, g.sessionId, g.parentToolUseId]), [
        ["message", 1, undefined, "goal-session", null],
        ["message", 2, undefined, "met-session", null]
      ])
      for (const [i, goal] of goals.entries()) {
        const record = decoded[goal.messageIndex]
        assert.isFalse(isDecodeError(record))
        assert.deepStrictEqual(Item.toJson(goal, JSON.parse((record as { raw: string }).raw)).value, activeGoals[i])
      }
      assert.deepStrictEqual(items.filter(parse("type:active_goal & main & !(error | system | text | tool | result | delta)")), goals)
      assert.strictEqual(items.filter(parse("session:goal-session")).length, 1)
      // The other items keep their kinds and selections.
      const others = items.filter(parse("!type:active_goal"))
      assert.deepStrictEqual(others.map((i) => i.kind), before.map((i) => i.kind))
      assert.strictEqual(others.filter(Filter.error).length, before.filter(Filter.error).length)
    })
  }
})
