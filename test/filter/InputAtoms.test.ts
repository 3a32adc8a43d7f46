/**
 * The input atoms (`command:`, `path:`, `url:`, `input.FIELD:`): their text form, what they select (over
 * calls written here and over every corpus and fixture file) and the types they narrow to.
 */
import { assert, describe, it } from "@effect/vitest"
import { Equal, Result } from "effect"
import * as Ast from "../../src/filter/Ast.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeMessage } from "../../src/schema/Message.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import * as fs from "node:fs"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertType = <T extends true>(_: T) => {}

const parse = (text: string) => Result.getOrThrow(Filter.parseResult(text))
const parseError = (text: string) => Result.getOrThrow(Result.flip(Filter.parseResult(text)))

const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["Bash", { command: "git status --short" }],
  ["Bash", { command: "rm -rf build" }],
  ["Read", { file_path: "/repo/src/a.ts" }],
  ["Read", { file_path: "/repo/test/a.ts" }],
  ["Write", { file_path: "src/deep/b.ts", content: "x" }],
  ["NotebookEdit", { notebook_path: "/repo/src/n.ipynb", new_source: "" }],
  ["Grep", { pattern: "x" }],
  ["WebFetch", { url: "https://effect.website/docs", prompt: "p" }],
  ["mcp__github__get_repo", { repo: "effect-claude-code", options: { mode: "fast" } }],
  ["Other", { command: "git status", file_path: "/repo/src/a.ts", url: "https://x" }]
]
const items = Item.fromIterable(calls.map(([name, input], i) =>
  Result.getOrThrow(decodeMessage({
    type: "assistant",
    session_id: "s",
    parent_tool_use_id: null,
    uuid: `u${i}`,
    message: {
      id: `m${i}`,
      type: "message",
      role: "assistant",
      model: "x",
      content: [{ type: "tool_use", id: `t${i}`, name, input }],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 }
    }
  }))
))
const selected = (text: string) => items.filter(parse(text)).map((item) => (item as Item.ToolUseItem).id)

const corpus = allStreamJsonFiles.flatMap((f) =>
  Item.fromIterable(decodeAll(fs.readFileSync(f)).map((d) => isDecodeError(d) ? d : d.message))
)

describe("input atoms", () => {
  it("parse and print", () => {
    for (
      const text of [
        "command:\"git status*\"",
        "path:src/**",
        "url:https://*",
        "input.repo:effect-*",
        "input.options.mode:fast",
        "tool:Read & path:\"my dir/**\""
      ]
    ) assert.strictEqual(Filter.describe(parse(text)), text)
    assert.isTrue(Equal.equals(parse("COMMAND:ls"), Filter.command("ls")))
    assert.isTrue(Equal.equals(parse("path:a | url:b"), Filter.or(Filter.path("a"), Filter.url("b"))))
    // The field name keeps its case; the keyword does not matter.
    assert.deepStrictEqual(parse("INPUT.File_Path:x").ast, { _tag: "Input", on: "field", field: "File_Path", pattern: "x" })
    assert.isFalse(Equal.equals(parse("input.a:x"), parse("input.A:x")))
  })

  it("name what is missing", () => {
    assert.strictEqual(parseError("command").reason._tag, "MissingValue")
    assert.include(parseError("path & text").message, "a path glob after \"path\"")
    assert.include(parseError("input.repo: x").message, "a glob after \"input.repo:\"")
    assert.strictEqual(parseError("input.:x").reason._tag, "UnknownAtom")
    assert.include(parseError("inptu.x:y").expected, "input.FIELD")
  })

  it("command and url read their tool's input", () => {
    assert.deepStrictEqual(selected("command:\"git status*\""), ["t0"])
    assert.deepStrictEqual(selected("command:*"), ["t0", "t1"])
    assert.deepStrictEqual(selected("url:https://effect.*"), ["t7"])
    assert.deepStrictEqual(selected("url:*"), ["t7"])
  })

  it("path reads each file tool's path, with path globs", () => {
    assert.deepStrictEqual(selected("path:src/**"), ["t2", "t4", "t5"])
    assert.deepStrictEqual(selected("path:src/*"), ["t2", "t5"])
    assert.deepStrictEqual(selected("path:/repo/**"), ["t2", "t3", "t5"])
    assert.deepStrictEqual(selected("path:**/a.ts"), ["t2", "t3"])
    assert.deepStrictEqual(selected("tool:Read & path:src/**"), ["t2"])
    // Grep without a path: no path to match.
    assert.deepStrictEqual(selected("tool:Grep & path:**"), [])
  })

  it("input.FIELD reads any tool's input, MCP tools included", () => {
    assert.deepStrictEqual(selected("input.repo:effect-*"), ["t8"])
    assert.deepStrictEqual(selected("input.options.mode:fast"), ["t8"])
    assert.deepStrictEqual(selected("input.command:git*"), ["t0", "t9"])
    // Not a string: no match.
    assert.deepStrictEqual(selected("input.options:*"), [])
  })

  it("select only tool calls of the assistant, over the corpus", () => {
    for (const text of ["command:*", "path:**", "url:*", "input.file_path:*"]) {
      const f = parse(text)
      for (const item of corpus.filter(f)) {
        assert.strictEqual(item.kind, "tool_use", text)
        assert.strictEqual((item as Item.ToolUseItem).role, "assistant", text)
      }
    }
    const bash = corpus.filter(Filter.toolUse("Bash"))
    assert.isAbove(bash.length, 0)
    assert.deepStrictEqual(corpus.filter(Filter.command("*")), bash.filter((b) => typeof b.input.command === "string"))
    const git = corpus.filter(Filter.command("git *"))
    assert.deepStrictEqual(git, bash.filter((b) => b.input.command.startsWith("git ")))
    const reads = corpus.filter(Filter.toolUse("Read"))
    assert.isAbove(reads.length, 0)
    assert.deepStrictEqual(corpus.filter(Filter.and(Filter.toolUse("Read"), Filter.path("/**"))), reads.filter((r) => r.input.file_path.startsWith("/")))
  })

  it("narrow types", () => {
    const bash = items.filter(Filter.command("git *"))
    bash.forEach((b) => {
      assertType<Equals<typeof b.name, "Bash">>(true)
      assertType<Equals<typeof b.input.command, string>>(true)
    })
    const fetches = items.filter(Filter.url("*"))
    fetches.forEach((f) => assertType<Equals<typeof f.input.url, string>>(true))
    const files = items.filter(Filter.path("src/**"))
    files.forEach((f) => {
      assertType<Equals<typeof f.name, Filter.PathTool>>(true)
      if (f.name === "NotebookEdit") assertType<Equals<typeof f.input.notebook_path, string>>(true)
    })
    const reads = items.filter(Filter.and(Filter.toolUse("Read"), Filter.path("src/**")))
    reads.forEach((r) => {
      assertType<Equals<typeof r.name, "Read">>(true)
      assertType<Equals<typeof r.input.file_path, string>>(true)
    })
    const repos = items.filter(Filter.input("repo", "*"))
    repos.forEach((r) => assertType<Equals<typeof r.input.repo, string>>(true))
    const nested = items.filter(Filter.input("options.mode", "*"))
    nested.forEach((r) => assertType<Equals<typeof r.input, unknown>>(true))
    assert.deepStrictEqual([bash.length, fetches.length, files.length, reads.length, repos.length, nested.length], [1, 1, 3, 1, 1, 1])
  })

  it("path globs", () => {
    assert.isTrue(Ast.matchPath("a/**/b", "a/b"))
    assert.isTrue(Ast.matchPath("a/**/b", "a/x/y/b"))
    assert.isFalse(Ast.matchPath("a/*/b", "a/x/y/b"))
    assert.isFalse(Ast.matchPath("src/**", "/repo/srcx/a"))
    assert.isFalse(Ast.matchPath("/repo/**", "/other/repo/a"))
    assert.isTrue(Ast.matchPath("src/?.ts", "/r/src/a.ts"))
    assert.isFalse(Ast.matchPath("src/?.ts", "/r/src/ab.ts"))
  })
})
