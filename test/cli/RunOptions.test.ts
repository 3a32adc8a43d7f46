/**
 * `run`'s claude options reach the CLI: the whole command line parsed by effect/cli in process, the CLI
 * started through a fake `ChildProcessSpawner` that records its argv and stdin and answers with a recording.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as CliError from "effect/cli/CliError"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as Run from "./support/Run.ts"

const recording = fs.readFileSync(path.join(Run.root, "fixtures", "recorded", "simple_hello.jsonl"), "utf8")

// `effect-claude-code run ...args` in process, the CLI answering with a recording.
const run = (args: ReadonlyArray<string>) => Run.command(["run", ...args], { stdout: recording })

// What effect/cli says is wrong with the command line (it shows these with the help).
const usageErrors = (exit: Exit.Exit<unknown, unknown>): string => {
  const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
  return CliError.isCliError(error) && error._tag === "ShowHelp" ? error.errors.map((e) => e.message).join("\n") : String(error)
}

// The value after `flag` in `args` (the flags the CLI got), every occurrence.
const values = (args: ReadonlyArray<string>, flag: string): Array<string> =>
  args.flatMap((a, i) => a === flag ? [args[i + 1]!] : [])

// Every temporary directory of the file's tests, removed when they are done.
const tempDirs: Array<string> = []
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
})

const tempFile = (name: string, content: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-run-options-"))
  tempDirs.push(dir)
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

describe("run: claude options", () => {
  it.effect("each flag becomes the CLI's own; the prompt goes to stdin", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { n: { type: "number" } } }
      const schemaFile = tempFile("schema.json", JSON.stringify(schema))
      const agents = { reviewer: { description: "Reviews", prompt: "Review the code" } }
      const out = yield* run([
        "--model", "sonnet",
        "--fallback-model", "haiku",
        "--permission-mode", "plan",
        "--allowed-tools", "Read, Grep", "--allowed-tools", "Bash(git:*)",
        "--disallowed-tools", "Write,Edit",
        "--tools", "Read,Grep,Bash",
        "--system-prompt", "You are terse.",
        "--append-system-prompt", "Answer in French.",
        "--max-turns", "4",
        "--max-budget-usd", "0.5",
        "--include-partial-messages",
        "--resume", "0f1e2d3c-aaaa-bbbb-cccc-111122223333",
        "--fork-session",
        "--json-schema", schemaFile,
        "--agents", JSON.stringify(agents),
        "--mcp-config", "servers.json", "--mcp-config", "{\"mcpServers\":{}}",
        "--strict-mcp-config",
        "--add-dir", "/srv/a", "--add-dir", "/srv/b",
        "--settings", "{\"theme\":\"dark\"}",
        "--setting-sources", "user,project",
        "--claude-arg=--debug", "--claude-arg=api",
        "Say hello"
      ])
      assert.strictEqual(out.value._tag, "Success", out.stderr)
      const [spawned] = out.spawned
      const args = spawned!.args
      assert.deepStrictEqual(values(args, "--model"), ["sonnet"])
      assert.deepStrictEqual(values(args, "--fallback-model"), ["haiku"])
      assert.deepStrictEqual(values(args, "--permission-mode"), ["plan"])
      assert.deepStrictEqual(values(args, "--allowedTools"), ["Read,Grep,Bash(git:*)"])
      assert.deepStrictEqual(values(args, "--disallowedTools"), ["Write,Edit"])
      assert.deepStrictEqual(values(args, "--tools"), ["Read,Grep,Bash"])
      assert.deepStrictEqual(values(args, "--system-prompt"), ["You are terse."])
      assert.deepStrictEqual(values(args, "--append-system-prompt"), ["Answer in French."])
      assert.deepStrictEqual(values(args, "--max-turns"), ["4"])
      assert.deepStrictEqual(values(args, "--max-budget-usd"), ["0.5"])
      assert.include(args, "--include-partial-messages")
      assert.deepStrictEqual(values(args, "--resume"), ["0f1e2d3c-aaaa-bbbb-cccc-111122223333"])
      assert.include(args, "--fork-session")
      assert.notInclude(args, "--continue")
      assert.deepStrictEqual(values(args, "--json-schema").map((s) => JSON.parse(s)), [schema])
      assert.deepStrictEqual(values(args, "--agents").map((s) => JSON.parse(s)), [agents])
      assert.deepStrictEqual(values(args, "--mcp-config"), ["servers.json", "{\"mcpServers\":{}}"])
      assert.include(args, "--strict-mcp-config")
      assert.deepStrictEqual(values(args, "--add-dir"), ["/srv/a", "/srv/b"])
      assert.deepStrictEqual(values(args, "--settings"), ["{\"theme\":\"dark\"}"])
      assert.deepStrictEqual(values(args, "--setting-sources"), ["user,project"])
      // Passed through as written, after everything else.
      assert.deepStrictEqual(args.slice(-2), ["--debug", "api"])
      assert.strictEqual(spawned!.stdin, "Say hello")
      assert.include(out.stdout, "Session complete")
    }))

  it.effect("without options: only the stream-json flags", () =>
    Effect.gen(function*() {
      const out = yield* run(["--continue", "Go on"])
      assert.strictEqual(out.value._tag, "Success", out.stderr)
      assert.deepStrictEqual(out.spawned[0]!.args, [...QueryOptions.toArgs({}), "--continue"])
    }))

  it.effect("--permission-mode takes every mode the CLI accepts", () =>
    Effect.gen(function*() {
      for (const mode of ["default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"]) {
        const out = yield* run(["--permission-mode", mode, "Hi"])
        assert.strictEqual(out.value._tag, "Success", out.stderr)
        assert.deepStrictEqual(values(out.spawned[0]!.args, "--permission-mode"), [mode])
      }
    }))

  it.effect("--claude: a path from the current directory, a bare name on PATH", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-run-cwd-"))
      const relative = yield* run(["--claude", "./bin/claude", "--cwd", dir, "Hi"])
      assert.strictEqual(relative.spawned[0]!.command, path.resolve("bin", "claude"))
      assert.strictEqual(relative.spawned[0]!.cwd, dir)
      const bare = yield* run(["--claude", "claude-nightly", "--cwd", dir, "Hi"])
      assert.strictEqual(bare.spawned[0]!.command, "claude-nightly")
      fs.rmSync(dir, { recursive: true })
    }))

  it.effect("--tools '' and --session-id", () =>
    Effect.gen(function*() {
      const id = "0f1e2d3c-aaaa-bbbb-cccc-111122223333"
      const out = yield* run(["--tools", "", "--session-id", id, "Hi"])
      assert.deepStrictEqual(values(out.spawned[0]!.args, "--tools"), [""])
      assert.deepStrictEqual(values(out.spawned[0]!.args, "--session-id"), [id])
    }))

  it.effect("bad values are usage errors, and nothing is started", () =>
    Effect.gen(function*() {
      for (
        const [args, expected] of [
          [["--setting-sources", "user,team"], /setting-sources.*user, project, local/s],
          [["--json-schema", "{not json"], /json-schema.*JSON object/s],
          [["--json-schema", "[1, 2]"], /json-schema.*JSON object/s],
          [["--json-schema", "/nonexistent/schema.json"], /json-schema.*readable file holding one \(no such file\)/s],
          [["--claude-arg", "--debug"], /Missing value for flag --claude-arg/],
          [["--permission-mode", "yolo"], /permission-mode/],
          [["--max-budget-usd", "lots"], /max-budget-usd/]
        ] as const
      ) {
        const out = yield* run([...args, "Hi"])
        assert.isTrue(Exit.isFailure(out.value), args.join(" "))
        assert.match(usageErrors(out.value), expected, args.join(" "))
        assert.deepStrictEqual(out.spawned, [], args.join(" "))
      }
    }))

  it("--help describes every option", () => {
    const help = Run.cli(["run", "--help"]).stdout
    for (
      const flag of [
        "--disallowed-tools", "--system-prompt", "--append-system-prompt", "--resume", "--continue", "--fork-session",
        "--session-id", "--max-budget-usd", "--fallback-model", "--mcp-config", "--add-dir", "--settings",
        "--setting-sources", "--json-schema", "--claude-arg", "--permission-mode"
      ]
    ) assert.match(help, new RegExp(`\\n  ${flag}(?: \\S+)? {2,}\\S`), flag)
    assert.match(help, /--permission-mode choice +how tool calls are permitted/)
    assert.match(help, /--format choice +.*jsonl without --filter: the stream-json lines exactly as written/)
    assert.match(help, /jsonl with --filter: one JSON object per selected item/)
  })
})
