/**
 * Compile-time checks: `tsc --noEmit` (part of `npm test`) fails if a filter
 * stops narrowing. The runtime assertions check the same items really match.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Result, Stream } from "effect"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"
import * as fs from "node:fs"
import * as path from "node:path"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertType = <T extends true>(_: T) => {}

const parse = (text: string) => Result.getOrThrow(Filter.parseResult(text))

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
    assert.isFalse(Filter.typed(broken))
    assert.isTrue(Filter.toolUse("Bash", { typed: false })(broken))
    assert.isTrue(parse("tool:Bash")(broken))
    assert.isTrue(parse("tool & !typed")(broken))
    assert.isTrue(Filter.toolUse("Ba*")(broken))
    assert.isTrue(Filter.toolUse()(broken))
  })

  it("typed filters print their check; untyped ones claim no type", () => {
    assert.strictEqual(Filter.describe(Filter.toolUse("Read")), "tool:Read & typed")
    assert.strictEqual(Filter.describe(Filter.toolUse("Read", { typed: false })), "tool:Read")
    assert.strictEqual(Filter.describe(Filter.toolUse("mcp__github__search")), "tool:mcp__github__search")
    assert.strictEqual(Filter.describe(Filter.toolUse("Rea*")), "tool:Rea*")
    assert.isTrue(Equal.equals(parse("tool:Read & typed"), Filter.toolUse("Read")))
    const untyped = items.filter(Filter.toolUse("Read", { typed: false }))
    untyped.forEach((r) => {
      assertType<Equals<typeof r.input, unknown>>(true)
      assertType<Equals<typeof r.name, "Read">>(true)
    })
    assert.strictEqual(untyped.length, items.filter(Filter.toolUse("Read")).length)
  })
})

// A newer CLI that renamed Read's `file_path`: the first Read call of a file loses it.
const withoutFilePath = (file: string): { readonly items: Array<Item.Item>; readonly reads: number } | undefined => {
  let changed = false
  let reads = 0
  const lines = readLines(file).map(({ text }) => {
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      return text
    }
    for (const block of json.type === "assistant" ? json.message.content : []) {
      if (block.type !== "tool_use" || block.name !== "Read") continue
      reads++
      if (!changed) {
        delete block.input.file_path
        changed = true
      }
    }
    return JSON.stringify(json)
  })
  if (!changed) return undefined
  const decoded = decodeAll(lines.join("\n"))
  return { items: Item.fromIterable(decoded.map((d) => isDecodeError(d) ? d : d.message)), reads }
}

describe("a Read call whose input lacks file_path", () => {
  const files = allStreamJsonFiles.filter((f) => withoutFilePath(f) !== undefined)

  it("is in the corpus and fixtures", () => {
    assert.isAtLeast(files.length, 5)
  })

  for (const file of files) {
    it(path.basename(file), () => {
      const { items, reads } = withoutFilePath(file)!
      const misfit = items.filter(parse("tool & !typed"))
      assert.strictEqual(misfit.length, 1)
      const [call] = misfit
      if (call.kind !== "tool_use") return assert.fail(`a ${call.kind} item is not a tool use`)
      assert.strictEqual(call.name, "Read")
      assert.notProperty(call.input, "file_path")
      // Not claimed as typed...
      assert.isFalse(Filter.toolUse("Read")(call))
      assert.strictEqual(items.filter(Filter.toolUse("Read")).length, reads - 1)
      for (const r of items.filter(Filter.toolUse("Read"))) assert.isString(r.input.file_path)
      // ...and not lost: by name, by glob, untyped, in the text syntax.
      assert.strictEqual(items.filter(parse("tool:Read")).length, reads)
      assert.strictEqual(items.filter(Filter.toolUse("Read", { typed: false })).length, reads)
      assert.strictEqual(
        items.filter(parse("tool:Rea*")).length,
        items.filter(Filter.toolUse()).filter((i) => i.name.startsWith("Rea")).length
      )
      assert.isTrue(parse("tool:Rea?")(call))
      assert.isTrue(Filter.and(Filter.toolUse(), Filter.not(Filter.typed))(call))
      // A predicate on the typed input is never called with it.
      const seen: Array<unknown> = []
      items.filter(Filter.toolUse("Read", (input) => seen.push(input) > 0))
      assert.strictEqual(seen.length, reads - 1)
      assert.notInclude(seen, call.input)
    })
  }
})
