import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Tmux from "./support/Tmux.ts"

const frames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/

// No network and no API key: the demo talks to a scripted model server on loopback.
const offline = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, NO_COLOR: "1", TERM: "xterm-256color" }

describe("terminal (tmux)", () => {
  it.live("demo: streamed text appears before the turn ends, tool lines once, closing line with the figures", () =>
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
    }).pipe(Effect.scoped), 90_000)

  it.live("the spinner shows elapsed time while waiting, only on a TTY", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "demo"], { env: offline })
      const seen = yield* pane.waitFor("a spinner", (s) => frames.test(s) && /\(\d+\.\ds\)/.test(s))
      assert.match(seen, /(Waiting for the model|Running \w+)…/)
      yield* pane.exit(60_000)
    }).pipe(Effect.scoped), 90_000)

  it.live("demo without a claude binary says so and replays the bundled recording", () =>
    Effect.gen(function*() {
      const pane = yield* Tmux.spawn([Tmux.node, Tmux.main, "demo"], {
        env: { ...offline, CLAUDE_CODE_EXECUTABLE: "/nonexistent/claude" }
      })
      const { code, screen } = yield* pane.exit(60_000)
      assert.strictEqual(code, 0)
      assert.include(screen, "No claude executable found")
      assert.include(screen, "● Write(count.txt)")
      assert.match(screen, /Session complete: 4 turns/)
    }).pipe(Effect.scoped), 90_000)

  it.live("colors on a TTY, none with NO_COLOR", () =>
    Effect.gen(function*() {
      const file = `${Tmux.root}/fixtures/recorded/demo.jsonl`
      const colored = yield* Tmux.spawn([Tmux.node, Tmux.main, "view", file], { env: { ...offline, NO_COLOR: undefined } })
      yield* colored.exit()
      assert.include(yield* colored.captureEscapes, "\x1b[")
      const plain = yield* Tmux.spawn([Tmux.node, Tmux.main, "view", file], { env: offline })
      yield* plain.exit()
      assert.notInclude(yield* plain.captureEscapes, "\x1b[32m")
    }).pipe(Effect.scoped), 90_000)
})
