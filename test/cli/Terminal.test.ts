import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import * as Tmux from "./support/Tmux.ts"

const frames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/

// The elapsed seconds the spinner shows, if one is on screen.
const spinner = (screen: string): number | undefined => {
  const shown = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] .*\((\d+\.\d)s\)/.exec(screen)
  return shown === null ? undefined : Number(shown[1])
}

const recording = path.join(Tmux.root, "fixtures", "recorded", "demo.jsonl")
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

// `view -` reading a recording whose writer stalls for 3s after the init line (ample time to look at the
// spinner, even on a loaded machine); `between` is written after the stall, before the rest; `after` takes
// the output.
const stalled = (after: string, between = "") =>
  `(head -n 1 ${quote(recording)}; sleep 3; ${between} tail -n +2 ${quote(recording)}) | ` +
  `${quote(Tmux.node)} ${quote(Tmux.main)} view -${after}`

// No network and no API key: the demo talks to a scripted model server on loopback.
const offline = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, NO_COLOR: "1", TERM: "xterm-256color" }

describe("terminal (tmux)", () => {
  it.live("demo: streamed text, tool lines once, closing line", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "demo"], { env: offline })
      // Mid-stream: part of the final answer is on screen while the session has not ended.
      const mid = yield* pane.waitFor("the final answer streaming", (s) =>
        s.includes("TODO.md has 2") && !s.includes("writing was not permitted."))
      assert.notInclude(mid, "Session complete")
      const { code, screen } = yield* pane.exit(60_000)
      assert.strictEqual(code, 0)
      for (const tool of ["● Read(TODO.md)", "● Bash(grep -c '\\[ \\]' TODO.md)", "● Write(count.txt)"]) {
        assert.strictEqual(screen.split(tool).length - 1, 1, `${tool} once in:\n${screen}`)
      }
      assert.match(screen, /⎿ {2}Read 5 lines/)
      assert.match(screen, /⎿ {2}Denied: Claude requested permissions to write/)
      assert.strictEqual(screen.split("TODO.md has 2 open items").length - 1, 1)
      assert.match(screen, /Session complete: 4 turns, \d+(\.\d)?m?s total \(\d+(\.\d)?m?s API\), \$0\.\d+/)
      assert.notMatch(screen.split("Session complete")[1]!, frames, "spinner erased at the end")
    }), 90_000)

  it.live("demo says once what is watched", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "demo"], { env: offline, cols: 200 })
      const { code, screen } = yield* pane.exit(60_000)
      assert.strictEqual(code, 0)
      const version = JSON.parse(fs.readFileSync(path.join(Tmux.root, "node_modules", "@anthropic-ai", "claude-code", "package.json"), "utf8")).version
      assert.strictEqual(screen.split(`the real Claude Code CLI ${version}`).length - 1, 1, screen)
      assert.match(screen, /scripted model.*no network.*nothing billed/)
      assert.isBelow(screen.indexOf("real Claude Code CLI"), screen.indexOf("● Read(TODO.md)"))
    }), 90_000)

  it.live("the spinner counts the elapsed time up while the input waits", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn(["sh", "-c", stalled("")], { env: offline })
      const first = yield* pane.waitFor("a spinner", (s) => spinner(s) !== undefined)
      assert.match(first, /Waiting for the model…/, first)
      const later = yield* pane.waitFor("the time to advance", (s) => (spinner(s) ?? 0) >= spinner(first)! + 0.3)
      assert.isAbove(spinner(later)!, spinner(first)!)
      const { code, screen } = yield* pane.exit()
      assert.strictEqual(code, 0)
      assert.notMatch(screen, frames, "spinner erased at the end")
    }), 90_000)

  it.live("no spinner when standard output is not a terminal", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-terminal-"))
      const out = path.join(dir, "out.txt")
      const pane = yield* Tmux.spawn(["sh", "-c", stalled(` | tee ${out}`)], { env: offline })
      // While the input stalls, the session line is shown and nothing else.
      const waiting = yield* pane.waitFor("the session line", (s) => s.includes("Session "))
      yield* Effect.sleep("1 second")
      assert.notMatch(yield* pane.capture, frames, waiting)
      const { code } = yield* pane.exit()
      assert.strictEqual(code, 0)
      const written = fs.readFileSync(out, "utf8")
      assert.include(written, "Session complete")
      assert.notMatch(written, /[\r\x1b]/)
      assert.notMatch(written, frames)
      fs.rmSync(dir, { recursive: true })
    }), 90_000)

  it.live("a bad line under the spinner gets a line of its own", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn(["sh", "-c", stalled("", "echo 'Warning: junk'; sleep 1;")], { env: offline })
      const mid = yield* pane.waitFor("the report and the spinner below it", (s) => {
        const lines = s.split("\n")
        const at = lines.findIndex((l) => l.includes("Warning: junk"))
        return at >= 0 && lines.slice(at + 1).some((l) => frames.test(l))
      })
      const report = mid.split("\n").find((l) => l.includes("Warning: junk"))!
      assert.match(report, /^✗ line 2: not a stream-json message \(.*\); found: Warning: junk$/, mid)
      const { code, screen } = yield* pane.exit()
      assert.strictEqual(code, 1)
      assert.match(screen, /\n✗ line 2: not a stream-json message .*found: Warning: junk\n/)
      assert.notMatch(screen, frames, "spinner erased at the end")
      assert.include(screen, "Session complete")
    }), 90_000)

  it.live("view with no FILE on a terminal: usage, exit 2", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "view"], { env: offline })
      const { code, screen } = yield* pane.exit()
      assert.strictEqual(code, ExitCode.Usage, screen)
      assert.include(screen, "view: no FILE given, and standard input is a terminal.")
      assert.include(screen, "| effect-claude-code view")
      assert.notMatch(screen, /\n\s+at |\.ts:\d+/)
    }), 90_000)

  it.live("demo without a claude binary replays the bundled recording", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "demo"], {
        env: { ...offline, CLAUDE_CODE_EXECUTABLE: "/nonexistent/claude" }
      })
      const { code, screen } = yield* pane.exit(60_000)
      assert.strictEqual(code, 0)
      assert.include(screen, "No claude executable found")
      assert.include(screen, "● Write(count.txt)")
      assert.match(screen, /Session complete: 4 turns/)
    }), 90_000)

  it.live("a long tool line fits the terminal; to a file it is cut", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-terminal-"))
      const file = path.join(dir, "long.jsonl")
      const command = "echo " + "0123456789".repeat(30)
      const lines = fs.readFileSync(recording, "utf8").replace(/"command":"grep -c '\\\\\[ \\\\\]' TODO.md"/, `"command":"${command}"`)
      assert.include(lines, command)
      fs.writeFileSync(file, lines)
      const bashLine = (screen: string) => screen.split("\n").find((l) => l.startsWith("● Bash("))!
      for (const cols of [80, 150]) {
        const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "view", file], { env: offline, cols })
        const { code, screen } = yield* pane.exit()
        assert.strictEqual(code, 0, screen)
        assert.strictEqual(bashLine(screen).length, cols, screen)
        assert.isTrue(bashLine(screen).endsWith("…)"), screen)
      }
      const piped = yield* Tmux.spawn(["sh", "-c", `${quote(Tmux.node)} ${quote(Tmux.main)} view ${quote(file)} | cat`], {
        env: offline,
        cols: 150
      })
      const { screen } = yield* piped.exit()
      assert.strictEqual(bashLine(screen), `● Bash(${command.slice(0, 79)}…)`, screen)
      fs.rmSync(dir, { recursive: true })
    }), 90_000)

  it.live("colors on a TTY, none with NO_COLOR", () =>
    Effect.gen(function*() {
      const file = `${Tmux.root}/fixtures/recorded/demo.jsonl`
      const colored = yield* Tmux.spawn([Tmux.node, Tmux.main, "view", file], { env: { ...offline, NO_COLOR: undefined } })
      yield* colored.exit()
      assert.include(yield* colored.captureEscapes, "\x1b[")
      const plain = yield* Tmux.spawn([Tmux.node, Tmux.main, "view", file], { env: offline })
      yield* plain.exit()
      assert.notInclude(yield* plain.captureEscapes, "\x1b[32m")
    }), 90_000)
})

describe("without tmux", () => {
  it.live("the terminal tests fail saying to install tmux, not with ENOENT", () =>
    Effect.gen(function*() {
      // PATH without tmux until the test ends.
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const saved = process.env.PATH
          process.env.PATH = "/nonexistent"
          return saved
        }),
        (saved) => Effect.sync(() => process.env.PATH = saved)
      )
      const exit = yield* Effect.exit(Effect.scoped(Tmux.spawn(["true"])))
      assert.isTrue(exit._tag === "Failure")
      const defect = exit._tag === "Failure" ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(defect, Tmux.TmuxMissing)
      assert.match((defect as Error).message, /need tmux, which is not installed .*install it \(apt-get install tmux/)
    }))
})
