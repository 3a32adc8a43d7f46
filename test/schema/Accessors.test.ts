import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { decodeMessage } from "../../src/schema/Message.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"

const decodeAll = () =>
  allStreamJsonFiles.flatMap((file) =>
    readLines(file).flatMap(({ text }) => {
      try {
        return [{ raw: JSON.parse(text) as Record<string, unknown>, decoded: Result.getOrThrow(decodeMessage(JSON.parse(text))) }]
      } catch {
        return []
      }
    })
  )

describe("typed accessors", () => {
  const all = decodeAll()

  it("user messages tell their tool_use_result apart by shape", () => {
    const seen = new Map<string, number>()
    for (const { raw, decoded } of all) {
      if (decoded._tag !== "UserMessage") continue
      const classified = decoded.toolUseResult
      if (raw.tool_use_result === undefined) {
        assert.isUndefined(classified)
        continue
      }
      assert.isDefined(classified)
      seen.set(classified!._tag, (seen.get(classified!._tag) ?? 0) + 1)
      if (classified!._tag === "Bash") assert.isString(classified!.value.stdout)
      if (classified!._tag === "Text") assert.strictEqual(classified!.value, raw.tool_use_result)
    }
    // The recorded fixtures run Read, Bash and Write, and a denied tool gives the CLI's error text.
    for (const tag of ["FileRead", "Bash", "Text"]) assert.isAbove(seen.get(tag) ?? 0, 0, tag)
  })

  it("decodes the post-turn summary the CLI writes after a result", () => {
    const summaries = all.flatMap(({ decoded }) => decoded._tag === "SystemPostTurnSummary" ? [decoded] : [])
    assert.isAbove(summaries.length, 0)
    for (const summary of summaries) assert.isString(summary.summarizes_uuid)
  })
})
