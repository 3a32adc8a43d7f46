/**
 * The policy example against the real CLI and a scripted model.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Script, Scripted } from "../src/testing/index.ts"
import { tidy } from "./policy.ts"

describe("policy", () => {
  it.live("allows, denies and asks by rule", () =>
    Effect.gen(function*() {
      const { cwd } = yield* Scripted.Sandbox
      fs.mkdirSync(path.join(cwd, "src"))
      fs.writeFileSync(path.join(cwd, "src", "notes.txt"), "old notes")
      const { decisions, messages, refused } = yield* tidy
      assert.deepStrictEqual(decisions, [
        "Read: allow by allow tool:Read & path:src/**",
        "Bash: deny by deny tool:Bash & command:\"rm *\" \"Nothing is deleted here.\"",
        "Write: ask by the default",
        "Write: ask by the default"
      ])
      assert.isTrue(fs.existsSync(path.join(cwd, "src", "notes.txt")))
      assert.isTrue(fs.existsSync(path.join(cwd, "NOTES.md")))
      assert.isFalse(fs.existsSync(path.join(cwd, "notes.txt")))
      const results = messages.flatMap((m) => m._tag === "UserMessage" ? m.toolResults : [])
      assert.deepStrictEqual(results.map((r) => r.isError), [false, true, true, false])
      assert.strictEqual(results[1].text, "Nothing is deleted here.")
      assert.deepStrictEqual(refused, [results[1].tool_use_id, results[2].tool_use_id])
    }).pipe(Effect.provide(Scripted.layer(({ cwd }) =>
      Script.make([
        Script.turn(Script.toolUse("Read", { file_path: path.join(cwd, "src", "notes.txt") })),
        Script.turn(Script.toolUse("Bash", { command: "rm -f src/notes.txt" })),
        Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, "notes.txt"), content: "x" })),
        Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, "NOTES.md"), content: "x" })),
        Script.turn("Tidied.")
      ])
    ))), { timeout: 60_000 })
})
