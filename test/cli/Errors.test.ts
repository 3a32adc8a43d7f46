/**
 * Errors a user can act on, as a user meets them: a readable message on stderr, no stack trace, and the
 * exit code `--help` documents.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import { reportedBeforeDecoding } from "../../src/cli/Display.ts"
import * as Run from "./support/Run.ts"

const noStack = /\n\s+at |\.ts:\d+/

const demo = path.join(Run.root, "fixtures", "recorded", "demo.jsonl")

// Every temporary directory of the file's tests, removed when they are done.
const tempDirs: Array<string> = []
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
})

const tempFile = (name: string, content: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-errors-"))
  tempDirs.push(dir)
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

describe("errors", () => {
  it("claude not found: how to install it, exit 4", () => {
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
    // A directory is read for its .jsonl files (session transcripts); one without any is an error.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-empty-"))
    const dir = Run.cli(["view", empty])
    fs.rmSync(empty, { recursive: true })
    expect(dir.status).toBe(ExitCode.BadInput)
    expect(dir.stderr).toContain(`Cannot read ${empty}: it is a directory with no .jsonl file`)
  })

  it("a file that is not stream-json: what each line holds, exit 3", () => {
    const file = tempFile("notes.txt", "hello world\n{\"foo\":1}\n")
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.BadInput)
    for (
      const fragment of [
        "line 1: not a stream-json message (",
        "found: hello world",
        "line 2: not a stream-json message (",
        "expected a string \"type\" field",
        `${file} is neither stream-json nor a session transcript: no line decoded`
      ]
    ) expect(run.stderr).toContain(fragment)
    expect(run.stderr).not.toMatch(noStack)
  })

  it("a transcript's bad lines are told as transcript lines", () => {
    // A conversation entry that does not fit (a bookkeeping one is only a warning: test/transcript/Bookkeeping.test.ts).
    const file = tempFile("session.jsonl", "{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":42}\n{not json\n")
    const view = Run.cli(["view", file])
    expect(view.stderr).toContain("line 1: not a transcript entry (Invalid \"user\" transcript entry")
    expect(view.stderr).toContain("line 2: not a transcript entry (")
    expect(view.stderr).not.toContain("stream-json")
    const strict = Run.cli(["view", "--strict", file])
    expect(strict.status).toBe(ExitCode.BadInput)
    expect(strict.stderr).toContain("Not a session transcript: line 1: not a transcript entry")
    const stats = Run.cli(["stats", file])
    expect(stats.status).toBe(ExitCode.BadInput)
    expect(stats.stderr).toContain(`${file} is not a session transcript: no line decoded`)
  })

  it("broken fields: the reason's lines under the report", () => {
    const lines = fs.readFileSync(demo, "utf8").trim().split("\n")
    const file = tempFile("broken.jsonl", [lines[0], "{\"type\":\"result\",\"subtype\":\"success\"}", ...lines.slice(1)].join("\n"))
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.StreamProblem)
    const report = run.stderr.split("\n")
    const at = report.findIndex((l) => l.startsWith("✗ line 2: not a stream-json message (Invalid \"result/success\" message"))
    expect(report[at]).toMatch(/\(InvalidFields\): Missing key\); found: \{"type":"result","subtype":"success"\}$/)
    expect(report[at + 1]).toBe("    at [\"result\"]")
    expect(run.stderr).not.toContain("\\n")
  })

  it("an empty file is an input error for view and stats, exit 3", () => {
    const file = tempFile("empty.jsonl", "")
    const view = Run.cli(["view", file])
    expect(view.status).toBe(ExitCode.BadInput)
    expect(view.stderr).toContain(`${file} is empty`)
    const stats = Run.cli(["stats", file])
    expect(stats.status).toBe(ExitCode.BadInput)
    expect(stats.stdout).toBe(`${file}\n  lines 0 · decoded 0 · unknown 0 · failed 0\n`)
    expect(stats.stderr).toContain(`${file} is empty`)
  })

  it("no line decodes: exit 3 for view and stats", () => {
    const file = tempFile("notes.txt", "hello world\n{\"foo\":1}\n")
    expect(Run.cli(["view", file]).status).toBe(ExitCode.BadInput)
    const stats = Run.cli(["stats", "--format", "json", file])
    expect(stats.status).toBe(ExitCode.BadInput)
    expect(JSON.parse(stats.stdout).files[0]).toMatchObject({ lines: 2, decoded: 0, failed: 2 })
    expect(stats.stderr).toContain(`${file} is neither stream-json nor a session transcript: no line decoded`)
    expect(stats.stderr).not.toMatch(noStack)
    for (const command of ["view", "stats"]) {
      expect(Run.cli([command, "--help"]).stdout).toMatch(/3 +input error: .*neither stream-json nor a session transcript: no line decodes\n +\(an empty file, only bad lines\)/)
    }
  })

  it("stats with an unreadable file: the rest counted, exit 3", () => {
    const good = path.join(Run.root, "fixtures", "recorded", "simple_hello.jsonl")
    for (const format of ["pretty", "json"]) {
      const run = Run.cli(["stats", "--format", format, good, "/nonexistent/missing.jsonl"])
      expect(run.status, format).toBe(ExitCode.BadInput)
      expect(run.stdout, format).toContain(good)
      expect(run.stdout, format).not.toContain("missing.jsonl")
      expect(run.stderr, format).toContain("Cannot read /nonexistent/missing.jsonl: no such file")
      expect(run.stderr, format).not.toMatch(noStack)
    }
    const json = JSON.parse(Run.cli(["stats", "--format", "json", good, "/nonexistent/missing.jsonl"]).stdout)
    expect(json.files.map((f: any) => f.path)).toEqual([good])
  })

  it("a recording with a bad line: exit 1, or 3 with --strict", () => {
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

  it("--help of every command lists the exit codes, once", () => {
    for (const command of [[], ["run"], ["view"], ["stats"], ["demo"]]) {
      const run = Run.cli([...command, "--help"])
      expect(run.status).toBe(0)
      expect(run.stdout.split("Exit codes:").length - 1, command.join(" ")).toBe(1)
      for (const code of ["0 ", "1 ", "2 ", "3 ", "4 ", "5 ", "130 "]) expect(run.stdout).toContain(`\n  ${code}`)
      expect(run.stdout).toContain("usage error")
    }
    // The root lists each command on one line.
    const root = Run.cli(["--help"]).stdout
    const listing = root.slice(root.indexOf("SUBCOMMANDS\n")).trimEnd().split("\n").slice(1)
    expect(listing.map((l) => l.trim().split(/\s+/)[0])).toEqual(["run", "view", "stats", "demo"])
  })

  it("--version is the package's", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(Run.root, "package.json"), "utf8"))
    const run = Run.cli(["--version"])
    expect(run.status).toBe(0)
    expect(run.stdout.trim()).toBe(`effect-claude-code v${manifest.version}`)
  })

  it("a long file that is not stream-json: a few lines, then a count", () => {
    const file = tempFile("notes.txt", Array.from({ length: 5000 }, (_, i) => `text line ${i + 1}`).join("\n") + "\n")
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.BadInput)
    const lines = run.stderr.trim().split("\n").filter((l) => l.trim() !== "")
    expect(lines.length).toBeLessThanOrEqual(reportedBeforeDecoding + 3)
    expect(run.stderr).toContain("line 3: not a stream-json message")
    expect(run.stderr).not.toContain("line 4:")
    expect(run.stderr).toContain(`… and ${5000 - reportedBeforeDecoding} more lines that did not decode`)
    expect(run.stderr).toContain(`${file} is neither stream-json nor a session transcript: no line decoded`)
  })

  it("a binary file: what was found escaped, the report short, exit 3", () => {
    // A NUL and "clear the screen" first, then every byte value over and over.
    const binary = new Uint8Array(200_000).map((_, i) => (i * 7919) % 256)
    binary.set([0x00, 0x1b, 0x5b, 0x32, 0x4a])
    const file = tempFile("binary.bin", "")
    fs.writeFileSync(file, binary)
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.BadInput)
    expect(run.stderr.length).toBeLessThan(8 * 1024)
    // Nothing that moves the cursor or clears the screen: no control character but the line ends.
    expect(run.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/)
    expect(run.stderr).toContain("found: \\x00\\e[2J")
    expect(run.stderr).toMatch(/… and \d+ more lines that did not decode/)
  })

  it("standard input that is not stream-json is called standard input", () => {
    const run = Run.cli(["view", "-"], { input: "hello\n" })
    expect(run.status).toBe(ExitCode.BadInput)
    expect(run.stderr).toContain("standard input is neither stream-json nor a session transcript: no line decoded")
    expect(Run.cli(["view"], { input: "hello\n" }).stderr).toContain("standard input is neither stream-json nor a session transcript")
  })

  it("a bad line after many good ones is reported", () => {
    const lines = fs.readFileSync(demo, "utf8").trim().split("\n")
    const junk = Array.from({ length: 10 }, (_, i) => `junk ${i}`)
    const file = tempFile("mixed.jsonl", [...lines.slice(0, 2), ...junk, ...lines.slice(2)].join("\n") + "\n")
    const run = Run.cli(["view", file])
    expect(run.status).toBe(ExitCode.StreamProblem)
    for (let i = 0; i < junk.length; i++) expect(run.stderr).toContain(`line ${i + 3}: not a stream-json message`)
    expect(run.stderr).not.toContain("more lines")
  })
})
