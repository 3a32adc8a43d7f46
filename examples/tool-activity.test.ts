/**
 * Test it without a network or an API key: swap the layer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Fixture, Scripted } from "../src/layers/index.ts"
import { Script } from "../src/testing/index.ts"
import { bashCommands, summary, toolCalls } from "./tool-activity.ts"

describe("tool activity", () => {
  // A recording replays through the same framing and decoding as the real CLI.
  it.effect("replays a recorded run", () =>
    Effect.gen(function*() {
      const commands = yield* Stream.runCollect(bashCommands("Fix the greeting"))
      assert.deepStrictEqual(commands, ["ls", "cat app.js app.test.js"])
      const { success, numTurns } = yield* summary("Fix the greeting")
      assert.deepStrictEqual({ success, numTurns }, { success: true, numTurns: 6 })
    }).pipe(Effect.provide(Fixture.layer("fixtures/recorded/complex_tool_chain.jsonl"))))

  // The real `claude` binary against a scripted model on loopback: the CLI runs its real tools.
  it.live("runs the real CLI against a scripted model", () =>
    Effect.gen(function*() {
      const [call] = yield* Stream.runCollect(toolCalls("How many files are here?"))
      assert.strictEqual(call.use.name, "Bash")
      assert.strictEqual(call.result?.block.text, "2")
      assert.strictEqual((yield* summary("How many files are here?")).finalText, "There are 2 files.")
    }).pipe(Effect.provide(Scripted.layer(
      Script.make([
        Script.turn(Script.toolUse("Bash", { command: "ls | wc -l" })),
        Script.turn("There are 2 files.")
      ]),
      { files: { "a.txt": "a", "b.txt": "b" } }
    ))))
})
