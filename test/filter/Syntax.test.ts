import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Hash, Result } from "effect"
import * as fc from "fast-check"
import * as Ast from "../../src/filter/Ast.ts"
import * as Filter from "../../src/filter/Filter.ts"
import type { FilterSyntaxError } from "../../src/filter/Syntax.ts"

const value = fc.oneof(
  fc.constantFrom("Bash", "mcp__github__*", "Rea?", "init", "toolu_01", "a:b", "x y", "(", "\"", "\\", "not", "", "tool"),
  fc.string()
)
const optValue = fc.option(value, { nil: undefined })

const atom: fc.Arbitrary<Filter.Filter> = fc.oneof(
  fc.constantFrom(Filter.text, Filter.thinking, Filter.error, Filter.permissionDenied, Filter.subagent, Filter.main, Filter.all, Filter.none),
  optValue.map((n) => n === undefined ? Filter.toolUse() : Filter.toolUse(n)),
  fc.record({ name: optValue, isError: fc.option(fc.boolean(), { nil: undefined }) }).map((o) => Filter.toolResult(o)),
  optValue.map(Filter.system),
  optValue.map(Filter.delta),
  value.map(Filter.messageType),
  value.map(Filter.session),
  value.map(Filter.fromTask)
)

const filter: fc.Arbitrary<Filter.Filter> = fc.letrec<{ f: Filter.Filter }>((tie) => ({
  f: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    tie("f").map(Filter.not),
    fc.array(tie("f"), { maxLength: 4 }).map((fs) => Filter.and(...fs)),
    fc.array(tie("f"), { maxLength: 4 }).map((fs) => Filter.or(...fs))
  )
})).f

const parse = (text: string) => Result.getOrThrow(Filter.parseResult(text))
const parseError = (text: string): FilterSyntaxError => Result.getOrThrow(Result.flip(Filter.parseResult(text)))

describe("filter text syntax", () => {
  it("parse(describe(f)) equals f", () => {
    fc.assert(
      fc.property(filter, (f) => {
        const back = parse(Filter.describe(f))
        assert.isTrue(Equal.equals(back, f), `${Filter.describe(f)} -> ${Filter.describe(back)}`)
        assert.strictEqual(Hash.hash(back), Hash.hash(f))
      }),
      { numRuns: 500 }
    )
  })

  it("equal filters compare equal, different ones do not", () => {
    assert.isTrue(Equal.equals(Filter.and(Filter.text, Filter.and(Filter.main, Filter.error)), parse("text & main & error")))
    assert.isTrue(Equal.equals(Filter.toolUse("Bash"), Filter.toolUse("Bash")))
    assert.isFalse(Equal.equals(Filter.toolUse("Bash"), Filter.toolUse("Read")))
    assert.isFalse(Equal.equals(parse("text | thinking & main"), parse("(text | thinking) & main")))
    assert.isTrue(Equal.equals(parse("TEXT and not thinking or tool:mcp__*"), parse("text & !thinking | tool:mcp__*")))
    assert.isTrue(Equal.equals(Filter.toolResult({ name: "Bash", isError: true }), parse("result:Bash & error")))
  })

  it("and binds tighter than or", () => {
    const ast = parse("text | thinking & main").ast
    assert.strictEqual(ast._tag, "Or")
    assert.strictEqual((ast as Ast.Or).filters[1]._tag, "And")
  })

  it("syntax errors name the position and what was expected", () => {
    const cases: ReadonlyArray<readonly [string, number, string]> = [
      ["", 0, "a filter"],
      ["text &", 6, "a filter"],
      ["text & (tool", 12, "\")\""],
      ["tool:", 5, "a tool name or glob"],
      ["type", 4, "\":\" and a message type"],
      ["text:x", 4, "takes no argument"],
      ["bogus", 0, "a filter"],
      ["text thinking", 5, "\"and\", \"or\""],
      ["text )", 5, "unbalanced"],
      ["tool:\"abc", 9, "closing"]
    ]
    for (const [input, offset, expected] of cases) {
      const e = parseError(input)
      assert.strictEqual(e._tag, "FilterSyntaxError")
      assert.strictEqual(e.offset, offset, input)
      assert.strictEqual(e.column, offset + 1)
      assert.include(e.expected, expected, input)
      assert.include(e.message, `column ${offset + 1}`)
    }
  })

  it.effect("parse fails in the error channel", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Filter.parse("tool & ("))
      assert.strictEqual(error.offset, 8)
      const ok = yield* Filter.parse("tool:Bash")
      assert.isTrue(Equal.equals(ok, Filter.toolUse("Bash")))
    }))

  it("code predicates print but do not parse", () => {
    const f = Filter.toolUse("Bash", (input) => input.command.startsWith("git"), "git")
    assert.strictEqual(Filter.describe(f), "tool:Bash & <git>")
    assert.isTrue(Result.isFailure(Filter.parseResult(Filter.describe(f))))
    assert.isTrue(Ast.hasWhere(f.ast))
  })

  it("globs match whole names", () => {
    assert.isTrue(Ast.matchName("mcp__*", "mcp__github__search"))
    assert.isFalse(Ast.matchName("mcp__*", "xmcp__a"))
    assert.isTrue(Ast.matchName("Rea?", "Read"))
    assert.isFalse(Ast.matchName("Read", "ReadX"))
    assert.isTrue(Ast.matchName("a.b*", "a.bc"))
    assert.isFalse(Ast.matchName("a.b", "axb"))
  })
})
