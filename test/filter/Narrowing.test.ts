/**
 * Compile-time checks: `tsc --noEmit` (part of `npm test`) fails if a filter
 * stops narrowing. The runtime assertions check the same items really match.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeAll, isDecodeError } from "../../src/stream/Decode.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import * as fs from "node:fs"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertType = <T extends true>(_: T) => {}

const items = allStreamJsonFiles.flatMap((f) =>
  Item.fromIterable(decodeAll(fs.readFileSync(f)).map((d) => isDecodeError(d) ? d : d.message))
)

describe("type narrowing", () => {
  it.effect("Stream.filter(items, toolUse(\"Bash\")) gives typed Bash inputs", () =>
    Effect.gen(function*() {
      const bash = yield* Stream.fromIterable(items).pipe(Stream.filter(Filter.toolUse("Bash")), Stream.runCollect)
      const commands = bash.map((item) => {
        const command = item.input.command
        assertType<Equals<typeof command, string>>(true)
        assertType<Equals<typeof item.name, "Bash">>(true)
        const timeout = item.input.timeout
        assertType<Equals<typeof timeout, number | undefined>>(true)
        return command
      })
      assert.isAbove(commands.length, 0)
      for (const c of commands) assert.isString(c)
    }))

  it("plain predicates, globs, combinators", () => {
    const reads = items.filter(Filter.toolUse("Read"))
    for (const r of reads) assert.isString(r.input.file_path)
    const edits = items.filter(Filter.and(Filter.toolUse("Edit"), Filter.main))
    edits.forEach((e) => assertType<Equals<typeof e.input.old_string, string>>(true))
    const mcp = items.filter(Filter.toolUse("mcp__*"))
    mcp.forEach((m) => assertType<Equals<typeof m.input, unknown>>(true))
    const other = items.filter(Filter.toolUse("SomeNewTool"))
    other.forEach((m) => assertType<Equals<typeof m.input, unknown>>(true))
    const texts = items.filter(Filter.and(Filter.text, Filter.subagent))
    texts.forEach((t) => assertType<Equals<typeof t.text, string>>(true))
    const results = items.filter(Filter.toolResult({ name: "Bash" }))
    results.forEach((r) => assertType<Equals<typeof r.toolName, string | undefined>>(true))
    const either = items.filter(Filter.or(Filter.text, Filter.thinking))
    either.forEach((i) => assertType<Equals<typeof i.kind, "text" | "thinking">>(true))
    assert.isAbove(reads.length, 0)
  })

  it("toolUse with a predicate on the typed input", () => {
    const git = Filter.toolUse("Bash", (input) => input.command.includes("git"), "git")
    const expected = items.filter(Filter.toolUse("Bash")).filter((i) => i.input.command.includes("git")).length
    assert.strictEqual(items.filter(git).length, expected)
  })

  it("works with Effect's Filter module", () => {
    const f = Filter.toFilter(Filter.toolUse("Glob"))
    const passed = items.flatMap((i) => {
      const r = f(i)
      return r._tag === "Success" ? [r.success.input.pattern] : []
    })
    assert.strictEqual(passed.length, items.filter(Filter.toolUse("Glob")).length)
  })

  it("a known tool whose input does not fit its schema is not narrowed", () => {
    const bad = items.find(Filter.toolUse("Bash"))!
    const broken = { ...bad, input: { cmd: 1 } } as Item.Item
    assert.isFalse(Filter.toolUse("Bash")(broken))
    assert.isTrue(Filter.toolUse("Ba*")(broken))
    assert.isTrue(Filter.toolUse()(broken))
  })
})
