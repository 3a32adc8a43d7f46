import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Hash, Result } from "effect"
import * as fc from "fast-check"
import * as Ast from "../../src/filter/Ast.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import type { FilterSyntaxError } from "../../src/filter/Syntax.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { filter } from "./support.ts"
import * as fs from "node:fs"
import * as path from "node:path"

// Every item of the corpus and fixtures, to check that forms judged equal select the same items.
const items = allStreamJsonFiles.flatMap((f) =>
  Item.fromIterable(decodeAll(fs.readFileSync(f)).map((d) => isDecodeError(d) ? d : d.message))
)

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

  it("equality ignores how and/or, negation, all and none are written", () => {
    const same = (a: Filter.Filter, b: Filter.Filter) => {
      assert.isTrue(Equal.equals(a, b), `${Filter.describe(a)} = ${Filter.describe(b)}`)
      assert.strictEqual(Hash.hash(a), Hash.hash(b))
    }
    fc.assert(
      fc.property(filter, filter, filter, (f, g, h) => {
        same(Filter.and(f, g), Filter.and(g, f))
        same(Filter.or(f, Filter.or(g, h)), Filter.or(Filter.or(h, g), f))
        same(Filter.and(f, Filter.and(g, h)), Filter.and(h, Filter.and(f, g), g))
        same(Filter.and(f, f), f)
        same(Filter.or(f, f, f), f)
        same(Filter.not(Filter.not(f)), f)
        same(Filter.fromAst({ _tag: "Not", filter: { _tag: "Not", filter: f.ast } }), f)
        same(Filter.and(f, Filter.all), f)
        same(Filter.or(f, Filter.none), f)
        same(Filter.and(f, Filter.none), Filter.none)
        same(Filter.or(g, Filter.all), Filter.all)
        same(Filter.not(Filter.all), Filter.none)
      }),
      { numRuns: 200 }
    )
  })

  it("a normalized filter selects the same items", () => {
    fc.assert(
      fc.property(filter, (f) => {
        const normal = Filter.fromAst(Ast.normalize(f.ast))
        assert.deepStrictEqual(items.filter(normal), items.filter(f), Filter.describe(f))
      }),
      { numRuns: 300 }
    )
  })

  it("equality is of form, not of meaning", () => {
    assert.isFalse(Equal.equals(Filter.and(Filter.text, Filter.thinking), Filter.or(Filter.text, Filter.thinking)))
    assert.isFalse(Equal.equals(Filter.not(Filter.text), Filter.text))
    assert.isFalse(Equal.equals(Filter.toolUse("Bash"), Filter.toolUse("Bash", { typed: false })))
    // Both select nothing, and still differ.
    assert.isFalse(Equal.equals(Filter.and(Filter.text, Filter.not(Filter.text)), Filter.none))
    // The text keeps the order it was built in.
    assert.strictEqual(Filter.describe(Filter.and(Filter.thinking, Filter.text)), "thinking & text")
  })

  it("the same code predicate is equal; closures alike are not", () => {
    const isGit = (input: { readonly command: string }) => input.command.startsWith("git")
    const long = (item: Item.Item) => item.messageIndex > 10
    assert.isTrue(Equal.equals(Filter.toolUse("Bash", isGit), Filter.toolUse("Bash", isGit)))
    assert.strictEqual(Hash.hash(Filter.toolUse("Bash", isGit)), Hash.hash(Filter.toolUse("Bash", isGit)))
    assert.isTrue(Equal.equals(Filter.toolUse("Bash", isGit, "git"), Filter.toolUse("Bash", isGit, "git")))
    assert.isFalse(Equal.equals(Filter.toolUse("Bash", isGit, "git"), Filter.toolUse("Bash", isGit, "other")))
    assert.isTrue(Equal.equals(Filter.where(long), Filter.where(long)))
    assert.isTrue(Equal.equals(Filter.and(Filter.where(long), Filter.text), Filter.and(Filter.text, Filter.where(long))))
    assert.isTrue(Equal.equals(Filter.toolUse(long), Filter.toolUse(long)))
    assert.isFalse(Equal.equals(Filter.where(long), Filter.toolUse(long)))
    assert.isFalse(Equal.equals(
      Filter.toolUse("Bash", (input) => input.command.startsWith("git"), "git"),
      Filter.toolUse("Bash", (input) => input.command.startsWith("git"), "git")
    ))
  })

  it("every example of the syntax reference parses", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../src/filter/Syntax.ts"), "utf8")
    const block = doc.slice(doc.indexOf("**Examples**")).match(/```text\n([\s\S]*?)```/)![1]
    const examples = block.split("\n").map((l) => l.replace(/^\s*\*\s?/, "").split(/\s{2,}/)[0].trim()).filter((l) => l !== "")
    assert.isAtLeast(examples.length, 5)
    for (const example of examples) {
      const f = parse(example)
      assert.isTrue(Equal.equals(parse(Filter.describe(f)), f), example)
    }
  })

  it("and binds tighter than or", () => {
    const ast = parse("text | thinking & main").ast
    assert.strictEqual(ast._tag, "Or")
    assert.strictEqual((ast as Ast.Or).filters[1]._tag, "And")
  })

  it("syntax errors name the position and what was expected", () => {
    const cases: ReadonlyArray<readonly [string, number, string, FilterSyntaxError["reason"]["_tag"]]> = [
      ["", 0, "a filter", "UnexpectedToken"],
      ["text &", 6, "a filter", "UnexpectedToken"],
      ["text & (tool", 12, "\")\"", "UnbalancedParenthesis"],
      ["tool:", 5, "a tool name or glob", "MissingValue"],
      ["type", 4, "\":\" and a message type", "MissingValue"],
      ["text:x", 4, "takes no argument", "UnexpectedValue"],
      ["bogus", 0, "a filter", "UnknownAtom"],
      ["text thinking", 5, "\"and\", \"or\"", "UnexpectedToken"],
      ["text )", 5, "unbalanced", "UnbalancedParenthesis"],
      ["tool:\"abc", 9, "closing", "UnclosedString"]
    ]
    for (const [input, offset, expected, reason] of cases) {
      const e = parseError(input)
      assert.strictEqual(e._tag, "FilterSyntaxError")
      assert.strictEqual(e.reason._tag, reason, input)
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
      const ok = yield* Filter.parse("tool:Bash & typed")
      assert.isTrue(Equal.equals(ok, Filter.toolUse("Bash")))
    }))

  it("code predicates print but do not parse", () => {
    const f = Filter.toolUse("Bash", (input) => input.command.startsWith("git"), "git")
    assert.strictEqual(Filter.describe(f), "tool:Bash & typed & <git>")
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
    // `-` is literal, and escaping it would be a syntax error in a `u` regex.
    assert.isTrue(Ast.matchName("*-mcp-?", "my-mcp-x"))
    assert.isFalse(Ast.matchName("*-mcp-?", "my_mcp_x"))
  })
})
