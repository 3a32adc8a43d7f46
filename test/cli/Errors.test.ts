/**
 * Errors a user can act on, as a user meets them: a readable message on stderr, no stack trace, and the
 * exit code `--help` documents.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import * as Run from "./support/Run.ts"

const noStack = /\n\s+at |\.ts:\d+/

const demo = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")

const tempFile = (name: string, content: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-errors-"))
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

describe("errors", () => {
  it("claude not found at the given path: how to install it or point to it, exit 4", () => {
    const run = Run.cli(["run", "--claude", "/nonexistent/claude", "hello"])
    expect(run.status).toBe(ExitCode.CliMissing)
    expect(run.stderr).toContain("Claude Code CLI not found: no executable at /nonexistent/claude")
    expect(run.stderr).toContain("npm install -g @anthropic-ai/claude-code")
    expect(run.stderr).toContain("--claude /path/to/claude or CLAUDE_CODE_EXECUTABLE")
    expect(run.stderr).not.toMatch(noStack)
    expect(run.stdout).toBe("")
  })

  it("claude not on PATH (and CLAUDE_CODE_EXECUTABLE unset): exit 4", () => {
    const env = { ...process.env, PATH: "/nonexistent", CLAUDE_CODE_EXECUTABLE: undefined }
    const run = Run.cli(["run", "hello"], { env })
    expect(run.status).toBe(ExitCode.CliMissing)
    expect(run.stderr).toContain(`no executable "claude" on PATH`)
    expect(run.stderr).not.toMatch(noStack)
  })

  it("CLAUDE_CODE_EXECUTABLE is where run looks when --claude is not given", () => {
    const run = Run.cli(["run", "hello"], { env: { ...process.env, CLAUDE_CODE_EXECUTABLE: "/nonexistent/from-env" } })
    expect(run.status).toBe(ExitCode.CliMissing)
    expect(run.stderr).toContain("/nonexistent/from-env")
  })

  it("claude failing before any result: its exit code and stderr, exit 5", () => {
    const fake = tempFile("claude", "#!/bin/sh\necho 'Error: unsupported option --frobnicate' >&2\nexit 3\n")
    fs.chmodSync(fake, 0o755)
    const run = Run.cli(["run", "--claude", fake, "hello"])
    expect(run.status).toBe(ExitCode.CliFailed)
    expect(run.stderr).toContain("The Claude Code CLI exited with code 3; stderr:\n  Error: unsupported option --frobnicate")
    expect(run.stderr).not.toMatch(noStack)
  })

  it("bad filter syntax: the column and a caret under it, exit 2", () => {
    for (const command of [["view", demo], ["run", "hello"]]) {
      const run = Run.cli([command[0]!, "--filter", "tool:Bash & (error", command[1]!])
      expect(run.status).toBe(ExitCode.Usage)
      expect(run.stderr).toContain("--filter: filter syntax error at column 19: expected \")\" or an operator, found end of input")
      expect(run.stderr).toContain("\n    tool:Bash & (error\n" + " ".repeat(4 + 18) + "^\n")
      expect(run.stderr).not.toMatch(noStack)
      expect(run.stdout).toBe("")
    }
  })

  it("an unknown flag is a usage error, exit 2", () => {
    const run = Run.cli(["view", "--colour", demo])
    expect(run.status).toBe(ExitCode.Usage)
    expect(run.stderr).toContain("--colour")
  })

  it("a file that does not exist or is a directory: which and why, exit 3", () => {
    const missing = Run.cli(["view", "/nonexistent/session.jsonl"])
    expect(missing.status).toBe(ExitCode.BadInput)
    expect(missing.stderr).toContain("Cannot read /nonexistent/session.jsonl: no such file")
    expect(missing.stderr).not.toMatch(noStack)
    const dir = Run.cli(["view", os.tmpdir()])
    expect(dir.status).toBe(ExitCode.BadInput)
    expect(dir.stderr).toContain(`Cannot read ${os.tmpdir()}: it is a directory`)
  })

  it("a file that is not stream-json: each line, what was found there, exit 3", () => {
    const file = tempFile("notes.txt", "hello world\n{\"foo\":1}\n")
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.BadInput)
    for (
      const fragment of [
        "line 1: not a stream-json message (",
        "found: hello world",
        "line 2: not a stream-json message (",
        "expected a string \"type\" field",
        `${file} is not stream-json: no line decoded`
      ]
    ) expect(run.stderr).toContain(fragment)
    expect(run.stderr).not.toMatch(noStack)
  })

  it("a recording with a bad line: shown anyway, the line reported, exit 1; --strict stops there, exit 3", () => {
    const lines = fs.readFileSync(demo, "utf8").split("\n")
    const file = tempFile("cut.jsonl", [...lines.slice(0, 3), "Warning: something printed by a wrapper", ...lines.slice(3)].join("\n"))
    const lenient = Run.cli(["view", file])
    expect(lenient.status).toBe(ExitCode.StreamProblem)
    expect(lenient.stderr).toContain("line 4: not a stream-json message")
    expect(lenient.stderr).toContain("found: Warning: something printed by a wrapper")
    expect(lenient.stdout).toContain("● Write(count.txt)")
    expect(lenient.stdout).toContain("Session complete")
    const strict = Run.cli(["view", "--strict", file])
    expect(strict.status).toBe(ExitCode.BadInput)
    expect(strict.stderr).toContain("Not stream-json: line 4:")
    expect(strict.stdout).not.toContain("Session complete")
  })

  it("a session that ended with an error result: shown, exit 1", () => {
    const run = Run.cli(["view", path.join(Run.root, "fixtures", "recorded", "error_max_turns.jsonl")])
    expect(run.status).toBe(ExitCode.StreamProblem)
    expect(run.stdout).toContain("Session failed (error_max_turns): Reached maximum number of turns (1)")
    expect(run.stderr).toBe("")
  })

  it("--help of every command lists the exit codes", () => {
    for (const command of [[], ["run"], ["view"], ["stats"], ["demo"]]) {
      const run = Run.cli([...command, "--help"])
      expect(run.status).toBe(0)
      for (const code of ["0 ", "1 ", "2 ", "3 ", "4 ", "5 ", "130 "]) expect(run.stdout).toContain(`\n  ${code}`)
      expect(run.stdout).toContain("usage error")
    }
  })
})
