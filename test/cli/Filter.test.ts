/**
 * `--filter` over every recording: `jsonl` prints exactly the selected items (counted here independently,
 * from the raw JSON), `json` counts them, `pretty` shows only them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

const raw = (file: string): Array<any> => readLines(file).map((l) => JSON.parse(l.text))

const blocksOf = (messages: Array<any>, type: string): Array<any> =>
  messages.filter((m) => m.type === type).flatMap((m) =>
    typeof m.message?.content === "string" ? [{ type: "text", text: m.message.content }] : m.message?.content ?? []
  )

// Each filter with its count taken straight from the raw JSON, not through the schemas or the items.
const cases: ReadonlyArray<{ readonly filter: string; readonly kind: string; readonly count: (messages: Array<any>) => number }> = [
  {
    filter: "tool:Bash",
    kind: "tool_use",
    count: (ms) => blocksOf(ms, "assistant").filter((b) => b.type === "tool_use" && b.name === "Bash").length
  },
  { filter: "result", kind: "tool_result", count: (ms) => blocksOf(ms, "user").filter((b) => b.type === "tool_result").length },
  { filter: "system:init", kind: "system", count: (ms) => ms.filter((m) => m.type === "system" && m.subtype === "init").length },
  {
    filter: "delta:text_delta",
    kind: "stream_event",
    count: (ms) => ms.filter((m) => m.type === "stream_event" && m.event?.delta?.type === "text_delta").length
  },
  {
    filter: "text & main & !type:user",
    kind: "text",
    count: (ms) => blocksOf(ms.filter((m) => (m.parent_tool_use_id ?? null) === null), "assistant").filter((b) => b.type === "text").length
  }
]

// What an item's value must be, straight from the raw JSON: the line, or its block (string content as a text block).
const wireValue = (messages: Array<any>, item: any): unknown => {
  const line = messages[item.message_index]
  if (item.block_index === null) return line
  const content = line.message.content
  return typeof content === "string" ? { type: "text", text: content } : content[item.block_index]
}

const parse = (text: string): Filter.Filter => {
  const result = Filter.parseResult(text)
  if (result._tag === "Failure") throw result.failure
  return result.success
}

describe("--filter", () => {
  for (const file of allStreamJsonFiles) {
    const name = path.basename(file, ".jsonl")

    it.effect(`jsonl prints exactly the selected items, json counts them: ${name}`, () =>
      Effect.gen(function*() {
        const messages = raw(file)
        for (const c of cases) {
          const jsonl = yield* Run.view(file, { format: "jsonl", filter: parse(c.filter) })
          const printed = jsonl.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
          expect(printed.length, c.filter).toBe(c.count(messages))
          for (const item of printed) {
            expect(item.kind, c.filter).toBe(c.kind)
            expect(item.value, c.filter).toEqual(wireValue(messages, item))
          }
          const json = yield* Run.view(file, { format: "json", filter: parse(c.filter) })
          const summary = JSON.parse(json.stdout)
          expect(summary.selected[c.kind] ?? 0, c.filter).toBe(c.count(messages))
          expect(Object.keys(summary.selected).filter((k) => k !== c.kind)).toEqual([])
        }
      }))

    it.effect(`jsonl without a filter prints the lines as written: ${name}`, () =>
      Effect.gen(function*() {
        const { stdout } = yield* Run.view(file, { format: "jsonl" })
        expect(stdout).toBe(readLines(file).map((l) => l.text.replace(/^\uFEFF/, "") + "\n").join(""))
      }))
  }

  it.effect("pretty shows only the selected items", () =>
    Effect.gen(function*() {
      const file = path.join(Run.root, "fixtures", "recorded", "complex_tool_chain.partial.jsonl")
      const { stdout } = yield* Run.view(file, { format: "pretty", filter: parse("tool:Bash | result:Bash") })
      expect(stdout).toBe(
        "● Bash(ls)\n  ⎿  app.js\n\n● Bash(cat app.js app.test.js)\n  ⎿  console.log(\"hello world\") … +1 line\n"
      )
    }))

  it.effect("pretty names the call of a result shown without it", () =>
    Effect.gen(function*() {
      const file = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")
      const { stdout } = yield* Run.view(file, { format: "pretty", filter: parse("tool:Bash | result & error") })
      expect(stdout).toBe(
        "● Bash(grep -c '\\[ \\]' TODO.md)\n\n" +
          "○ Write(count.txt)\n  ⎿  Denied: Claude requested permissions to write to count.txt, but you haven't granted it yet.\n"
      )
      // With `error`, the failed call is shown too: its result goes under it.
      const withCalls = yield* Run.view(file, { format: "pretty", filter: parse("tool:Bash | error") })
      expect(withCalls.stdout).toBe(
        "● Bash(grep -c '\\[ \\]' TODO.md)\n\n" +
          "● Write(count.txt)\n  ⎿  Denied: Claude requested permissions to write to count.txt, but you haven't granted it yet.\n"
      )
    }))

  it("--help of view and run names every atom the parser knows", () => {
    // The parser lists its atoms when it finds none: the help must not fall behind it.
    const failure = Filter.parseResult("")
    if (failure._tag === "Success") throw new Error("an empty filter parsed")
    const atoms = /expected a filter \(([^"]+), "not"/.exec(failure.failure.message)![1]!.split(", ")
    expect(atoms).toContain("typed")
    for (const command of ["view", "run"]) {
      const help = Run.cli([command, "--help"]).stdout.replace(/\s+/g, " ")
      const listed = /\(atoms: ([^;,]+)/.exec(help)![1]!.split(" ").map((atom) => atom.replace(/:.*|\[.*/, ""))
      expect(new Set(listed), command).toEqual(new Set(atoms))
    }
  })

  it.effect("json summarizes the run whatever the filter selects", () =>
    Effect.gen(function*() {
      const file = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")
      const { stdout } = yield* Run.view(file, { format: "json", filter: parse("none") })
      const result = raw(file).find((m) => m.type === "result")
      const summary = JSON.parse(stdout)
      expect(summary).toMatchObject({
        lines: raw(file).length,
        failed: 0,
        selected: {},
        completed: true,
        success: true,
        numTurns: result.num_turns,
        totalCostUsd: result.total_cost_usd,
        permissionDenials: result.permission_denials
      })
      expect(summary.result).toEqual(result)
    }))

  it.effect("jsonl with a filter prints lines as written, unknown fields kept", () =>
    Effect.gen(function*() {
      const source = path.join(Run.root, "fixtures", "recorded", "read_file.jsonl")
      const future = raw(source).map((line) => ({
        ...line,
        future_line_field: 1,
        ...(Array.isArray(line.message?.content)
          ? { message: { ...line.message, content: line.message.content.map((b: object) => ({ ...b, future_block_field: 2 })) } }
          : {})
      }))
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-future-"))
      try {
        const file = path.join(dir, "future.jsonl")
        fs.writeFileSync(file, future.map((line) => JSON.stringify(line) + "\n").join(""))
        const { stdout } = yield* Run.view(file, { format: "jsonl", filter: parse("tool | result | type:result") })
        const printed = stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
        expect(printed.map((item) => item.kind)).toEqual(["tool_use", "tool_result", "result"])
        for (const item of printed) {
          expect(item.value).toEqual(wireValue(future, item))
          expect(item.value[item.kind === "result" ? "future_line_field" : "future_block_field"]).toBeDefined()
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))

  it("tool:Bash & error gives the failed calls; a filter that can select nothing is said so", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-filter-"))
    try {
      const envelope = (uuid: string, parentUuid: string | null) => ({ uuid, parentUuid, isSidechain: false, sessionId: "s" })
      const lines: Array<any> = [
        { type: "user", ...envelope("u1", null), message: { role: "user", content: "list" } },
        {
          type: "assistant",
          ...envelope("a1", "u1"),
          message: {
            id: "m1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
            content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls /nope" } }],
            usage: { input_tokens: 1, output_tokens: 1 }
          }
        },
        {
          type: "user",
          ...envelope("u2", "a1"),
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "No such file" }] }
        }
      ]
      const file = path.join(dir, "session.jsonl")
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
      const failedResults = lines.flatMap((l) => Array.isArray(l.message.content) ? l.message.content : [])
        .filter((b: any) => b.type === "tool_result" && b.is_error === true).length
      expect(failedResults).toBe(1)

      // A call is an error when its result is.
      const calls = Run.cli(["view", "--format", "jsonl", "--filter", "tool:Bash & error", file])
      expect(calls.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((item) => [item.kind, item.value.id])).toEqual([["tool_use", "t1"]])
      expect(calls.stderr).not.toContain("--filter")
      const results = Run.cli(["view", "--format", "jsonl", "--filter", "result:Bash & error", file])
      expect(results.stdout.trim().split("\n").filter((l) => l !== "")).toHaveLength(failedResults)
      expect(results.stderr).not.toContain("--filter")
      const contradiction = Run.cli(["view", "--format", "jsonl", "--filter", "tool:Bash & result:Bash", file])
      expect(contradiction.stderr).toContain("it selects nothing: its parts ask for items of different kinds")
      const readContradiction = Run.cli(["view", "--format", "jsonl", "--filter", "tool:Read & result:Read", file])
      expect(readContradiction.stderr).toContain("it selects nothing: its parts ask for items of different kinds")
      const apiErrors = Run.cli(["view", "--format", "jsonl", "--filter", "text & error", file])
      expect(apiErrors.stderr).toContain("--filter text & error: it selects only text items of API error messages")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
