/**
 * The session example against the real CLI and a scripted model.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Script, Scripted } from "../src/testing/index.ts"
import { triage } from "./session.ts"

describe("session", () => {
  it.live("calls the tool, then writes only the file the callback allows", () =>
    Effect.gen(function*() {
      const messages = yield* triage
      const { cwd } = yield* Scripted.Sandbox
      const results = messages.flatMap((m) => m._tag === "UserMessage" ? m.toolResults : [])
      assert.deepStrictEqual(results.map((r) => r.isError), [false, true, false])
      assert.strictEqual(results[0].text, "open")
      assert.strictEqual(results[1].text, "Only Markdown files may be written.")
      assert.strictEqual(fs.readFileSync(path.join(cwd, "status.md"), "utf8"), "ECC-1 is open.")
      assert.isFalse(fs.existsSync(path.join(cwd, "status.txt")))
      assert.deepStrictEqual(
        messages.filter((m) => m._tag === "ResultSuccess").map((m) => m.result),
        ["ECC-1 is open.", "Saved to status.md."]
      )
    }).pipe(Effect.provide(Scripted.layer(({ cwd }) =>
      Script.make([
        Script.turn(Script.toolUse("mcp__tickets__ticket_status", { id: "ECC-1" })),
        Script.turn("ECC-1 is open."),
        Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, "status.txt"), content: "ECC-1 is open." })),
        Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, "status.md"), content: "ECC-1 is open." })),
        Script.turn("Saved to status.md.")
      ])
    ))), { timeout: 60_000 })
})
