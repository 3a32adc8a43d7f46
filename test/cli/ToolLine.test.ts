/**
 * Tool lines for the `tool_use_result` shapes the recordings do not hold, and the text fallbacks.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as ToolLine from "../../src/cli/ToolLine.ts"
import { allStreamJsonFiles, nameOf } from "../support/Corpus.ts"

const ok = (toolName: string, meta: unknown, text = "") =>
  ToolLine.result({ toolName, isError: false, denied: false, text, meta, cwd: "/work" })

describe("ToolLine.result", () => {
  it("summarizes each known tool_use_result shape", () => {
    expect(ok("Grep", { mode: "content", numFiles: 2, filenames: ["a", "b"], content: "x", numLines: 7 })).toBe("Found 7 lines")
    expect(ok("Grep", { mode: "count", numFiles: 1, filenames: ["a"], numMatches: 3 })).toBe("Found 3 matches")
    expect(ok("Grep", { mode: "files_with_matches", numFiles: 1, filenames: ["a"] })).toBe("Found 1 file")
    expect(ok("TodoWrite", { oldTodos: [], newTodos: [{ content: "a", status: "pending" }] })).toBe("1 todo")
    expect(ok("WebFetch", { url: "u", code: 200, codeText: "OK", result: "r", bytes: 512, durationMs: 9 })).toBe("200 OK (512 bytes)")
    expect(ok("WebSearch", { query: "effect ts", results: [{}, {}], durationSeconds: 1 })).toBe("2 results for effect ts")
    expect(ok("Task", { status: "completed", prompt: "p", totalDurationMs: 4200, totalTokens: 900, totalToolUseCount: 3 }))
      .toBe("Done (3 tool uses · 900 tokens · 4.2s)")
    expect(ok("Edit", {
      filePath: "/work/src/a.ts",
      structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 2, lines: ["-a", "+b", "+c"] }]
    })).toBe("Updated src/a.ts (+2 -1)")
    expect(ok("Bash", { stdout: "", stderr: "warning\n", interrupted: true })).toBe("warning (interrupted)")
  })

  it("falls back on the text when the CLI sent no metadata", () => {
    expect(ok("Read", undefined, "     1→a\n     2→b\n\n<system-reminder>\nnote\n</system-reminder>")).toBe("Read 2 lines")
    expect(ok("Glob", undefined, "/work/a.ts\n/work/b.ts")).toBe("Found 2 files")
    expect(ok("Write", undefined, "File created successfully at: /work/out.txt")).toBe("Created out.txt")
    expect(ok("Bash", undefined, "")).toBe("(no output)")
  })

  it("errors and denials: first line, relative paths", () => {
    const failed = (text: string, denied = false) =>
      ToolLine.result({ toolName: "Bash", isError: true, denied, text, meta: `Error: ${text}`, cwd: "/work" })
    expect(failed("Exit code 2\nls: /work/nope: No such file")).toBe("Error: Exit code 2 · ls: nope: No such file")
    expect(failed("<tool_use_error>Error: File does not exist.</tool_use_error>")).toBe("Error: File does not exist.")
    expect(failed("Claude requested permissions to write to /work/a.txt, but you haven't granted it yet.", true))
      .toBe("Denied: Claude requested permissions to write to a.txt, but you haven't granted it yet.")
  })
})

describe("paths relative to the working directory", () => {
  it("POSIX: inside it, itself, a sibling with the same prefix, the root", () => {
    expect(ToolLine.relative("/work/src/a.ts", "/work")).toBe("src/a.ts")
    expect(ToolLine.relative("/work/src/a.ts", "/work/")).toBe("src/a.ts")
    expect(ToolLine.relative("/work", "/work")).toBe(".")
    expect(ToolLine.relative("/workshop/a.ts", "/work")).toBe("/workshop/a.ts")
    expect(ToolLine.relative("/etc/hosts", "/")).toBe("/etc/hosts")
    expect(ToolLine.relative("/Work/a.ts", "/work")).toBe("/Work/a.ts")
  })

  it("Windows: drive letters in any case, either separator, UNC shares", () => {
    const cwd = "C:\\Projects\\Claude-Orchestrator"
    expect(ToolLine.relative("C:\\Projects\\Claude-Orchestrator\\pyproject.toml", cwd)).toBe("pyproject.toml")
    expect(ToolLine.relative("c:/projects/claude-orchestrator/src/a.py", cwd)).toBe("src/a.py")
    expect(ToolLine.relative("C:\\Projects\\Claude-Orchestrator", cwd)).toBe(".")
    expect(ToolLine.relative("C:\\Projects\\Claude-Orchestrator-2\\a.py", cwd)).toBe("C:\\Projects\\Claude-Orchestrator-2\\a.py")
    expect(ToolLine.relative("D:\\Projects\\Claude-Orchestrator\\a.py", cwd)).toBe("D:\\Projects\\Claude-Orchestrator\\a.py")
    expect(ToolLine.relative("C:\\a\\b.txt", "C:\\")).toBe("a\\b.txt")
    expect(ToolLine.relative("\\\\server\\share\\a.txt", "\\\\server\\share")).toBe("a.txt")
  })

  it("Windows: tool lines and error summaries", () => {
    const cwd = "C:\\work"
    expect(ToolLine.call("Read", { file_path: "C:\\work\\src\\main.py" }, cwd)).toBe("Read(src\\main.py)")
    expect(ToolLine.call("Grep", { pattern: "TODO", path: "C:\\work\\src" }, cwd)).toBe("Grep(TODO in src)")
    expect(ToolLine.result({ toolName: "Write", isError: false, denied: false, text: "", meta: { type: "create", filePath: "C:\\work\\out.txt", content: "x", structuredPatch: [] }, cwd }))
      .toBe("Created out.txt")
    expect(ToolLine.result({ toolName: "Read", isError: true, denied: false, text: "File does not exist: C:\\work\\nope.txt", meta: undefined, cwd }))
      .toBe("Error: File does not exist: nope.txt")
  })
})

// Every successful Read result that carries `numLines`, with its text as the CLI wrote it.
const reads = (file: string) =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    try {
      const m = JSON.parse(line)
      const block = Array.isArray(m?.message?.content) ? m.message.content.find((b: any) => b.type === "tool_result") : undefined
      if (m.type !== "user" || block === undefined || block.is_error === true || m.tool_use_result?.file?.numLines === undefined) return []
      const text = typeof block.content === "string" ? block.content : block.content.map((b: any) => b.text ?? "").join("")
      return [{ meta: m.tool_use_result, text }]
    } catch {
      return []
    }
  })

describe("Read lines: one rule with and without metadata", () => {
  it("a file ending in a newline: the numbered empty last line counts", () => {
    expect(ok("Read", undefined, "1\thello\n2\t")).toBe(ok("Read", { type: "text", file: { filePath: "/work/a", content: "hello\n", numLines: 2, startLine: 1, totalLines: 2 } }))
  })

  const files = allStreamJsonFiles.filter((file) => reads(file).length > 0)
  it("has recordings with Read metadata", () => expect(files.length).toBeGreaterThan(3))
  for (const file of files) {
    it(`the text counts what numLines says: ${nameOf(file)}`, () => {
      for (const { meta, text } of reads(file)) expect(ok("Read", undefined, text)).toBe(ok("Read", meta, text))
    })
  }
})
