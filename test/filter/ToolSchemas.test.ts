import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as ToolInput from "../../src/schema/ToolInput.ts"
import * as ToolUseResult from "../../src/schema/ToolUseResult.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"

const lines = allStreamJsonFiles.flatMap((file) =>
  readLines(file).flatMap(({ line, text }) => {
    try {
      return [{ file, line, json: JSON.parse(text) }]
    } catch {
      return []
    }
  })
)

describe("ToolInput", () => {
  it("every known tool's input in the corpus fits its schema", () => {
    let checked = 0
    for (const { file, line, json } of lines) {
      const content = json.type === "assistant" ? json.message.content : []
      for (const block of content) {
        if (block.type !== "tool_use" || !ToolInput.isKnownToolName(block.name)) continue
        checked++
        assert.isTrue(ToolInput.isInputOf(block.name, block.input), `${file}:${line} ${block.name}`)
      }
    }
    assert.isAbove(checked, 50)
  })

  it("rejects inputs that do not fit and passes unknown tools", () => {
    assert.isFalse(ToolInput.isInputOf("Bash", { cmd: "ls" }))
    assert.isFalse(ToolInput.isInputOf("TodoWrite", { todos: [{ content: "x", status: "done" }] }))
    assert.isTrue(ToolInput.isInputOf("mcp__x__y", 42))
    assert.isTrue(ToolInput.decode("Read", { file_path: "/a", extra: 1 })._tag === "Success")
    assert.isTrue(ToolInput.decode("Read", {})._tag === "Failure")
  })
})

describe("ToolUseResult", () => {
  const values = lines.filter(({ json }) => json.type === "user" && "tool_use_result" in json)

  it("every tool_use_result of the corpus has a known shape", () => {
    assert.isAbove(values.length, 10)
    for (const { file, line, json } of values) {
      const c = ToolUseResult.classify(json.tool_use_result)
      assert.notStrictEqual(c._tag, "Unknown", `${file}:${line} ${JSON.stringify(json.tool_use_result).slice(0, 200)}`)
    }
  })

  it("decodes and encodes back to the same JSON", () => {
    const decode = Schema.decodeUnknownSync(ToolUseResult.ToolUseResult)
    const encode = Schema.encodeSync(ToolUseResult.ToolUseResult)
    for (const { json } of values) {
      assert.deepStrictEqual(encode(decode(json.tool_use_result)), json.tool_use_result)
    }
  })

  it("tells the shapes apart", () => {
    assert.strictEqual(ToolUseResult.classify({ stdout: "", stderr: "", interrupted: false })._tag, "Bash")
    assert.strictEqual(
      ToolUseResult.classify({ type: "text", file: { filePath: "/a", content: "x", numLines: 1, startLine: 1, totalLines: 1 } })._tag,
      "FileRead"
    )
    assert.strictEqual(
      ToolUseResult.classify({ type: "create", filePath: "/a", content: "x", structuredPatch: [] })._tag,
      "FileWrite"
    )
    assert.strictEqual(ToolUseResult.classify("Error: nope")._tag, "Text")
    assert.isTrue(ToolUseResult.isErrorText("Error: nope"))
    assert.strictEqual(ToolUseResult.classify({ what: 1 })._tag, "Unknown")
  })
})
