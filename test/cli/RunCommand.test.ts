/**
 * `run` end to end: the real `claude` binary against the scripted model server (no network, no API key),
 * started as a user starts it, with the server's address in the environment of the `run` process.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import * as Pretty from "../../src/cli/Pretty.ts"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import type * as Scenario from "../../src/testing/Scenario.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Run from "./support/Run.ts"
import * as Tmux from "./support/Tmux.ts"

// A sandbox (temp HOME and cwd, dummy key) pointed at a server playing `script`; both go when the scope closes.
const sandboxFor = (script: (context: Scenario.Context) => Script.Script, files: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const bare = yield* ClaudeSandbox.make({ files })
    const server = yield* ScriptedServer.make(script({ cwd: bare.cwd, home: bare.home }))
    return { sandbox: ClaudeSandbox.withBaseUrl(bare, server.url), server }
  })

const run = (sandbox: ClaudeSandbox.Sandbox, args: ReadonlyArray<string>, prompt: string) =>
  Run.cliAsync(["run", "--claude", sandbox.executable, "--cwd", sandbox.cwd, ...args, prompt], sandbox.env)

const jsonLines = (stdout: string): Array<any> => stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

const readThenWrite = ({ cwd }: Scenario.Context) =>
  Script.make([
    Script.turn([Script.text("Reading notes."), Script.toolUse("Read", { file_path: `${cwd}/notes.txt` })]),
    Script.turn([Script.toolUse("Write", { file_path: `${cwd}/out.txt`, content: "done\n" })]),
    Script.turn("Saved out.txt.")
  ])
const notes = { "notes.txt": "alpha\nbeta\n" }

layer(NodeServices.layer, { excludeTestServices: true })("run (real CLI, scripted model)", (it) => {
  it.effect("jsonl: the run's options reach the CLI", () =>
    Effect.gen(function*() {
      const { sandbox, server } = yield* sandboxFor(readThenWrite, notes)
      const out = yield* run(sandbox, [
        "--format", "jsonl", "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits",
        "--max-turns", "5", "--include-partial-messages"
      ], "Copy the notes.")
      assert.strictEqual(out.code, 0, out.stderr)
      const messages = jsonLines(out.stdout)
      const init = messages.find((m) => m.type === "system" && m.subtype === "init")
      assert.strictEqual(init.model, "claude-sonnet-4-5")
      assert.strictEqual(init.permissionMode, "acceptEdits")
      assert.strictEqual(init.cwd, sandbox.cwd)
      assert.isTrue(messages.some((m) => m.type === "stream_event"))
      const turns = ScriptedServer.turnRequests(yield* server.requests)
      assert.deepStrictEqual(turns.map((r) => (r.body as { model: string }).model), Array(3).fill("claude-sonnet-4-5"))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "out.txt"), "utf8"), "done\n")
      const result = messages.at(-1)
      assert.deepStrictEqual([result.type, result.subtype, result.num_turns], ["result", "success", 3])
    }), 60_000)

  it.effect("--max-turns stops the run: the closing line says why, exit 1", () =>
    Effect.gen(function*() {
      const { sandbox } = yield* sandboxFor(readThenWrite, notes)
      const out = yield* run(sandbox, ["--max-turns", "1"], "Copy the notes.")
      assert.strictEqual(out.code, ExitCode.StreamProblem, out.stderr)
      assert.include(out.stdout, "● Read(notes.txt)")
      assert.match(out.stdout, /\nSession failed \(error_max_turns\): .*\d turns?, /)
    }), 60_000)

  it.effect("--allowed-tools grants a Write the default mode denies", () =>
    Effect.gen(function*() {
      const denied = yield* sandboxFor(readThenWrite, notes)
      const without = yield* run(denied.sandbox, ["--format", "json", "--permission-mode", "default"], "Copy the notes.")
      assert.strictEqual(without.code, 0, without.stderr)
      const refused = JSON.parse(without.stdout)
      assert.deepStrictEqual(refused.permissionDenials.map((d: any) => d.tool_name), ["Write"])
      assert.isFalse(fs.existsSync(path.join(denied.sandbox.cwd, "out.txt")))

      const granted = yield* sandboxFor(readThenWrite, notes)
      const withTool = yield* run(granted.sandbox, ["--format", "json", "--allowed-tools", "Read, Write"], "Copy the notes.")
      assert.strictEqual(withTool.code, 0, withTool.stderr)
      const summary = JSON.parse(withTool.stdout)
      assert.deepStrictEqual(summary.permissionDenials, [])
      assert.strictEqual(summary.success, true)
      assert.strictEqual(summary.numTurns, 3)
      assert.strictEqual(summary.result.result, "Saved out.txt.")
      assert.isTrue(fs.existsSync(path.join(granted.sandbox.cwd, "out.txt")))
    }), 90_000)

  it.effect("system prompts and --disallowed-tools reach the model's request", () =>
    Effect.gen(function*() {
      const { sandbox, server } = yield* sandboxFor(() => Script.make([Script.turn("Done.")]))
      const out = yield* run(sandbox, [
        "--format", "json", "--system-prompt", "You are a scripted test double.",
        "--append-system-prompt", "Answer in one word.", "--disallowed-tools", "Write,Edit"
      ], "Hi.")
      assert.strictEqual(out.code, 0, out.stderr)
      assert.strictEqual(JSON.parse(out.stdout).result.result, "Done.")
      const [turn] = ScriptedServer.turnRequests(yield* server.requests)
      const body = turn!.body as { system: unknown; tools: Array<{ name: string }> }
      const system = JSON.stringify(body.system)
      assert.include(system, "You are a scripted test double.")
      assert.include(system, "Answer in one word.")
      const tools = body.tools.map((t) => t.name)
      assert.include(tools, "Read")
      assert.notInclude(tools, "Write")
      assert.notInclude(tools, "Edit")
    }), 60_000)

  it.effect("a relative --claude is resolved from where run started", () =>
    Effect.gen(function*() {
      const { sandbox } = yield* sandboxFor(() => Script.make([Script.turn("Done.")]))
      // `run` starts in the checkout; the sandbox's working directory is elsewhere.
      const relative = path.relative(Run.root, sandbox.executable)
      assert.isFalse(path.isAbsolute(relative))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, relative)))
      const out = yield* Run.cliAsync(["run", "--claude", relative, "--cwd", sandbox.cwd, "--format", "json", "Hi."], sandbox.env)
      assert.strictEqual(out.code, 0, out.stderr)
      assert.strictEqual(JSON.parse(out.stdout).result.result, "Done.")
    }), 60_000)

  it.effect("--filter on run: jsonl prints exactly the tool calls", () =>
    Effect.gen(function*() {
      const { sandbox } = yield* sandboxFor(readThenWrite, notes)
      const out = yield* run(sandbox, ["--format", "jsonl", "--filter", "tool", "--include-partial-messages"], "Copy.")
      assert.strictEqual(out.code, 0, out.stderr)
      const items = jsonLines(out.stdout)
      assert.deepStrictEqual(items.map((i) => [i.kind, i.value.name]), [["tool_use", "Read"], ["tool_use", "Write"]])
      assert.deepStrictEqual(items[0].value.input, { file_path: path.join(sandbox.cwd, "notes.txt") })
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("run in a terminal (tmux)", (it) => {
  const command = "ls -la notes.txt && echo 'a command long enough to arrive in pieces' | wc -c"
  const answer = "The listing shows notes.txt, and the echoed sentence has forty-four characters in all."
  const script = () =>
    Script.make([
      Script.turn([Script.text("Listing."), Script.toolUse("Bash", { command, description: "List and count" })], {
        chunkSize: 6,
        eventDelay: "20 millis"
      }),
      // Slow enough that the answer is on screen, in part, well before the turn ends.
      Script.turn(answer, { chunkSize: 8, eventDelay: "150 millis" })
    ])

  it.effect("pretty, partial messages: streamed text, tool line, closing line", () =>
    Effect.gen(function*() {
      const { sandbox } = yield* sandboxFor(script, notes)
      // The CLI's own stdout goes to a log too, to compare the closing line with the result it printed.
      const log = path.join(sandbox.home, "stdout.jsonl")
      const tee = path.join(sandbox.home, "claude-tee")
      fs.writeFileSync(tee, `#!/bin/bash\nset -o pipefail\n'${sandbox.executable}' "$@" | tee '${log}'\n`, { mode: 0o755 })
      const env = Object.entries({ ...sandbox.env, TERM: "xterm-256color" }).map(([k, v]) => `${k}=${v}`)
      const pane = yield* Tmux.spawn([
        "env", "-i", ...env, Tmux.node, Tmux.main, "run", "--claude", tee, "--cwd", sandbox.cwd,
        "--include-partial-messages", "--allowed-tools", "Bash", "List the notes."
      ])
      const mid = yield* pane.waitFor("the answer, in part", (s) => s.includes("The listing shows") && !s.includes("in all."))
      assert.notInclude(mid, "Session complete")
      const { code, screen } = yield* pane.exit(60_000)
      assert.strictEqual(code, 0, screen)
      assert.strictEqual(screen.split(`● Bash(${command})`).length - 1, 1, screen)
      assert.strictEqual(screen.split("● ").length - 1, 1, screen)
      assert.match(screen, /● Bash\(.*\)\n {2}⎿ {2}-rw.*notes\.txt … \+1 line\n/)
      assert.strictEqual(screen.split(answer).length - 1, 1, screen)
      const result = jsonLines(fs.readFileSync(log, "utf8")).find((m) => m.type === "result")
      const closing = `Session complete: ${result.num_turns} turns, ${Pretty.seconds(result.duration_ms)} total ` +
        `(${Pretty.seconds(result.duration_api_ms)} API), ${Pretty.dollars(result.total_cost_usd)}`
      assert.include(screen, closing)
    }), 90_000)
})
