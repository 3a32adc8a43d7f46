/**
 * `denied` (the filter atom and `ToolResultItem.denied`) and the schema's `Permission` helpers name the same
 * refused calls: over every corpus and fixture file, and for a refusal known only from `tool_result_meta`
 * (a hook's reject, with no `permission_denied` line and no refusal wording).
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeMessage, type Message } from "../../src/schema/Message.ts"
import * as Permission from "../../src/schema/Permission.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, nameOf } from "../support/Corpus.ts"
import * as fs from "node:fs"

const deniedIds = (messages: ReadonlyArray<Message>) =>
  Item.fromIterable(messages).filter(Filter.permissionDenied).flatMap((item) =>
    item.kind === "tool_result" ? [item.toolUseId] : []
  ).sort()

const refusedResults = (messages: ReadonlyArray<Message>) =>
  Permission.refusals(messages).flatMap((refusal) =>
    refusal.sources.includes("tool_result") ? [refusal.toolUseId] : []
  ).sort()

describe("denied", () => {
  for (const file of allStreamJsonFiles) {
    it(`names the tool results Permission names: ${nameOf(file)}`, () => {
      const messages = decodeAll(fs.readFileSync(file)).flatMap((d) => isDecodeError(d) ? [] : [d.message])
      assert.deepStrictEqual(deniedIds(messages), refusedResults(messages))
    })
  }

  it("follows the CLI's own decision in tool_result_meta", () => {
    const base = { session_id: "s", parent_tool_use_id: null }
    const call = (id: string) => ({ type: "tool_use", id, name: "Write", input: { file_path: `/w/${id}`, content: "x" } })
    const result = (id: string, text: string) => ({ type: "tool_result", tool_use_id: id, is_error: true, content: text })
    const lines = [
      {
        type: "assistant",
        ...base,
        uuid: "a",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          model: "x",
          content: [call("hooked"), call("failed"), call("worded")],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 }
        }
      },
      {
        type: "user",
        ...base,
        uuid: "u",
        message: {
          role: "user",
          content: [
            result("hooked", "Blocked by hook: writes are not allowed"),
            result("failed", "EACCES: permission denied, open '/w/failed'"),
            result("worded", "Claude requested permissions to write to /w/worded, but you haven't granted it yet.")
          ]
        },
        tool_result_meta: [
          { id: "hooked", permission_decision: { decision: "reject", source: "hook" } },
          { id: "failed", permission_decision: { decision: "allow", source: "rule" } }
        ]
      }
    ]
    const messages = lines.map((line) => Result.getOrThrow(decodeMessage(line)))
    // "hooked" only by its decision; "failed" ran and failed; "worded" has no meta, so its wording decides.
    assert.deepStrictEqual(deniedIds(messages), ["hooked", "worded"])
    assert.deepStrictEqual(refusedResults(messages), ["hooked", "worded"])
  })
})
