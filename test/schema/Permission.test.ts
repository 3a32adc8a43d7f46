/**
 * Permission helpers over every corpus and fixture file: the refusals a run
 * reports in three places (system line, tool result, result) agree and come
 * out once each, named after the refused call; the recorded permission
 * scenarios of the current CLI give exactly what their mode implies.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as path from "node:path"
import { decodeMessage, type Message } from "../../src/schema/Message.ts"
import * as Permission from "../../src/schema/Permission.ts"
import { allStreamJsonFiles, fixturesDir, readLines } from "../support/Corpus.ts"

const messagesOf = (file: string): ReadonlyArray<Message> =>
  readLines(file).map(({ text }) => Result.getOrThrow(decodeMessage(JSON.parse(text))))

const recorded = (name: string) => path.join(fixturesDir, "recorded", name)

const idsFrom = (refusals: ReadonlyArray<Permission.Refusal>, source: Permission.Denial["source"]) =>
  refusals.filter((refusal) => refusal.sources.includes(source)).map((refusal) => refusal.toolUseId).sort()

describe("isRefusalText", () => {
  const texts: ReadonlyArray<readonly [string, boolean]> = [
    ["Claude requested permissions to write to /w/a.txt, but you haven't granted it yet.", true],
    ["Claude requested permissions to use WebFetch, but you haven't granted it yet.", true],
    ["Permission to use Bash has been denied by your rule Bash(rm:*).", true],
    ["Permission for this action has been denied. Reason: outside the project", true],
    ["The user doesn't want to proceed with this tool use. The tool use was rejected.", true],
    ["Cannot write to /tmp/claude-sandbox/work/out.txt while in plan mode.", true],
    ["Cannot call mcp__x__y while in plan mode.", true],
    // Tools failing on their own, from the corpus.
    ["Exit code 1\ncat: missing.txt: No such file or directory", false],
    ["File does not exist.", false],
    ["<tool_use_error>Error: No such tool available: Glob.</tool_use_error>", false],
    ["EISDIR: illegal operation on a directory, read", false],
    ["Agent type 'file-existence-checker' not found.", false]
  ]
  it("knows every refusal wording, and no failing tool is one", () => {
    for (const [text, refusal] of texts) assert.strictEqual(Permission.isRefusalText(text), refusal, text)
  })
})

describe("refusals over every corpus and fixture file", () => {
  for (const file of allStreamJsonFiles) {
    it(path.basename(file), () => {
      const messages = messagesOf(file)
      const refusals = Permission.refusals(messages)
      // Once each, and every place that reported one is accounted for.
      assert.strictEqual(new Set(refusals.map((refusal) => refusal.toolUseId)).size, refusals.length)
      const reported = messages.flatMap((message) => Permission.denials(message))
      assert.deepStrictEqual(
        [...new Set(reported.map((denial) => denial.toolUseId))].sort(),
        refusals.map((refusal) => refusal.toolUseId).sort()
      )
      // The result's record and the tool results sent to the model name the same calls.
      if (messages.some((message) => message._tag === "ResultSuccess" || message._tag === "ResultError")) {
        assert.deepStrictEqual(idsFrom(refusals, "tool_result"), idsFrom(refusals, "result"))
      }
      for (const refusal of refusals) {
        assert.isString(refusal.toolName, `${refusal.toolUseId}: named`)
        if (refusal.sources.includes("tool_result")) assert.isTrue(Permission.isRefusalText(refusal.detail ?? ""))
      }
    })
  }
})

describe("the recorded permission scenarios (CLI 2.1.332)", () => {
  const scenarios = [
    ["create_file", "default", "hello.py"],
    ["permission_default", "default", "out.txt"],
    ["permission_plan", "plan", "out.txt"],
    ["permission_accept_edits", "acceptEdits", undefined],
    ["permission_bypass", "bypassPermissions", undefined]
  ] as const
  for (const [name, mode, refused] of scenarios) {
    for (const file of [`${name}.jsonl`, `${name}.partial.jsonl`]) {
      it(`${file}: ${mode} mode, ${refused === undefined ? "nothing refused" : `the Write of ${refused} refused once`}`, () => {
        const messages = messagesOf(recorded(file))
        assert.strictEqual(messages.map(Permission.permissionMode).find((m) => m !== undefined), mode)
        const refusals = Permission.refusals(messages)
        if (refused === undefined) return assert.deepStrictEqual(refusals, [])
        assert.strictEqual(refusals.length, 1)
        const [refusal] = refusals
        assert.strictEqual(refusal!.toolName, "Write")
        assert.deepStrictEqual(refusal!.sources, ["system", "tool_result", "result"])
        assert.isTrue(String(refusal!.toolInput?.file_path).endsWith(`/${refused}`))
        assert.isTrue(Permission.isRefusalText(refusal!.detail!))
      })
    }
  }

  it("a tool result names its tool from tool_result_meta alone", () => {
    const messages = messagesOf(recorded("permission_plan.jsonl"))
    const user = messages.find((message) => message._tag === "UserMessage" && message.toolResults.length > 0)!
    assert.deepStrictEqual(Permission.denials(user).map((denial) => denial.toolName), [undefined])
    const calls = new Map(messages.flatMap((message) => [...Permission.toolCalls(message)]))
    assert.deepStrictEqual(Permission.denials(user, calls).map((denial) => denial.toolName), ["Write"])
  })

  it("an error tool result that is not a refusal stays out", () => {
    for (const name of ["failing_bash.jsonl", "file_listing.jsonl"]) {
      const messages = messagesOf(recorded(name))
      assert.isTrue(messages.some((m) => m._tag === "UserMessage" && m.toolResults.some((block) => block.isError)))
      assert.deepStrictEqual(Permission.refusals(messages), [], name)
    }
  })
})

describe("denials of one message", () => {
  const user = (meta: unknown, text: string) =>
    Result.getOrThrow(decodeMessage({
      type: "user",
      parent_tool_use_id: null,
      session_id: "s",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: text }] },
      ...(meta === undefined ? {} : { tool_result_meta: [{ id: "t1", ...meta as object }] })
    }))

  it("the permission decision of tool_result_meta wins over the text", () => {
    const refusalText = "Claude requested permissions to write to /x, but you haven't granted it yet."
    assert.lengthOf(Permission.denials(user(undefined, refusalText)), 1)
    assert.lengthOf(Permission.denials(user({ permission_decision: { decision: "accept", source: "config" } }, refusalText)), 0)
    assert.lengthOf(Permission.denials(user({ non_execution_kind: "interrupted" }, refusalText)), 0)
    assert.lengthOf(Permission.denials(user({ permission_decision: { decision: "reject", source: "hook" } }, "Blocked by hook")), 1)
    assert.lengthOf(Permission.denials(user(undefined, "File not found")), 0)
  })

  it("dedupe keeps the first name, input and detail, and each source once", () => {
    const denial = (source: Permission.Denial["source"], toolName?: string, detail?: string): Permission.Denial => ({
      source,
      toolUseId: "t1",
      toolName,
      toolInput: undefined,
      detail
    })
    assert.deepStrictEqual(
      Permission.dedupe([denial("tool_result", undefined, "no"), denial("system", "Write", "denied"), denial("system", "Edit")]),
      [{ toolUseId: "t1", toolName: "Write", toolInput: undefined, detail: "no", sources: ["tool_result", "system"] }]
    )
  })
})
