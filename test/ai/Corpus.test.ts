/**
 * Every stream-json capture of the corpus, through the provider's translation into effect/ai response parts:
 * the parts decode with effect/ai's own schemas, each text is told once, and each result follows its call. Every
 * call of one of Claude Code's tools decodes through the provider tool's parameters.
 */
import { assert, describe, it } from "@effect/vitest"
import { Response, Toolkit } from "effect/ai"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { ClaudeCodeTool } from "../../src/ai/index.ts"
import * as Translate from "../../src/ai/internal/translate.ts"
import { decodeMessage, type Message } from "../../src/schema/Message.ts"
import * as Partial from "../../src/stream/Partial.ts"
import { allStreamJsonFiles, nameOf, readLines } from "../support/Corpus.ts"

const builtIns = [
  ClaudeCodeTool.Bash,
  ClaudeCodeTool.Read,
  ClaudeCodeTool.Write,
  ClaudeCodeTool.Edit,
  ClaudeCodeTool.Glob,
  ClaudeCodeTool.Grep,
  ClaudeCodeTool.WebFetch,
  ClaudeCodeTool.WebSearch,
  ClaudeCodeTool.Task,
  ClaudeCodeTool.TodoWrite,
  ClaudeCodeTool.NotebookEdit
]
const decodeParts = Schema.decodeUnknownExit(Schema.Array(Response.StreamPart(Toolkit.make(...builtIns))))

const messagesOf = (file: string): Array<Message> =>
  readLines(file).flatMap(({ text }) => {
    const decoded = decodeMessage(JSON.parse(text))
    return decoded._tag === "Success" ? [decoded.success] : []
  })

const translate = (messages: ReadonlyArray<Message>) => {
  const assembler = Partial.makeAssembler()
  const translator = Translate.make({
    json: false,
    module: "test",
    method: "translate",
    toolOf: (name) => builtIns.find((tool) => tool.providerName === name)
  })
  const events: Array<Partial.Event> = []
  for (const message of messages) assembler.push(message, events)
  assembler.end(events)
  const parts: Array<Response.StreamPartEncoded> = []
  const errors = events.flatMap((event) => {
    const error = translator.push(event, parts)
    return error === undefined ? [] : [error]
  })
  return { parts, errors }
}

const mainTexts = (messages: ReadonlyArray<Message>) =>
  messages.flatMap((m) =>
    m._tag === "AssistantMessage" && m.parent_tool_use_id === null
      ? m.message.content.flatMap((block) => block._tag === "TextBlock" ? [block.text] : [])
      : []
  )

describe("translation of the corpus", () => {
  for (const file of allStreamJsonFiles) {
    it(nameOf(file), () => {
      const messages = messagesOf(file)
      const { errors, parts } = translate(messages)
      const decoded = decodeParts(parts)
      assert.isTrue(Exit.isSuccess(decoded), String(decoded))
      // Streamed or whole, each text block of the main thread comes once and whole.
      const streamed = parts.flatMap((p) => p.type === "text-delta" ? [p.delta] : []).join("")
      const written = mainTexts(messages).join("")
      assert.strictEqual(streamed, written)
      const calls = new Set<string>()
      for (const part of parts) {
        if (part.type === "tool-call") calls.add(part.id)
        if (part.type === "tool-result") assert.isTrue(calls.has(part.id), `result ${part.id} before its call`)
      }
      const results = messages.filter((m) => m._tag === "ResultSuccess" || m._tag === "ResultError")
      const finishes = parts.filter((p) => p.type === "finish")
      assert.strictEqual(finishes.length + errors.length, results.length)
    })
  }
})

describe("Claude Code's tools as provider tools", () => {
  it("every call of the corpus decodes through its tool's parameters", () => {
    let decoded = 0
    for (const file of allStreamJsonFiles) {
      for (const message of messagesOf(file)) {
        if (message._tag !== "AssistantMessage") continue
        for (const block of message.message.content) {
          const tool = block._tag === "ToolUseBlock" ? builtIns.find((t) => t.providerName === block.name) : undefined
          if (block._tag !== "ToolUseBlock" || tool === undefined) continue
          const params = Schema.decodeUnknownExit(tool.parametersSchema as Schema.Codec<unknown>)(block.input)
          assert.isTrue(Exit.isSuccess(params), `${nameOf(file)}: ${block.name} ${String(params)}`)
          decoded++
        }
      }
    }
    assert.isAbove(decoded, 100)
  })

  it("a Read call's input, typed by ClaudeCodeTool.Read", () => {
    const input = allStreamJsonFiles.flatMap(messagesOf).flatMap((m) =>
      m._tag === "AssistantMessage"
        ? m.message.content.flatMap((b) => b._tag === "ToolUseBlock" && b.name === "Read" ? [b.input] : [])
        : []
    )[0]
    const params = Schema.decodeUnknownSync(ClaudeCodeTool.Read.parametersSchema)(input)
    const filePath: string = params.file_path
    assert.isTrue(filePath.startsWith("/"), filePath)
  })
})
