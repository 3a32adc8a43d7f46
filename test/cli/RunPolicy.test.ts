/**
 * `run --policy FILE`: the real `claude` binary against the scripted model, its tool calls decided by a policy
 * in the filter language.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeMessage } from "../../src/schema/Message.ts"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Run from "./support/Run.ts"

const policy = [
  "allow tool:Write & path:out/**",
  "deny  tool:Write & path:*.env   \"no secrets\"",
  "default ask"
].join("\n")

const sandboxWith = (files: Record<string, string>, script: (cwd: string) => Script.Script) =>
  Effect.gen(function*() {
    const bare = yield* ClaudeSandbox.make({ files })
    const server = yield* ScriptedServer.make(script(bare.cwd))
    return ClaudeSandbox.withBaseUrl(bare, server.url)
  })

const run = (sandbox: ClaudeSandbox.Sandbox, args: ReadonlyArray<string>) =>
  Run.cliAsync(["run", "--claude", sandbox.executable, "--cwd", sandbox.cwd, ...args, "Write the files."], sandbox.env)

layer(NodeServices.layer, { excludeTestServices: true })("run --policy (real CLI, scripted model)", (it) => {
  it.effect("allows, denies and asks by rule; denied selects the refused calls", () =>
    Effect.gen(function*() {
      const sandbox = yield* sandboxWith({ "policy.txt": policy }, (cwd) =>
        Script.make([
          Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, "out", "a.txt"), content: "a" })),
          Script.turn(Script.toolUse("Write", { file_path: path.join(cwd, ".env"), content: "KEY=1" })),
          Script.turn(Script.toolUse("Bash", { command: "touch asked.txt" })),
          Script.turn("Done.")
        ]))
      const out = yield* run(sandbox, ["--format", "jsonl", "--permission-mode", "default", "--policy", path.join(sandbox.cwd, "policy.txt")])
      assert.strictEqual(out.code, 0, out.stderr)
      assert.strictEqual(out.stderr, "")
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "out", "a.txt"), "utf8"), "a")
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, ".env")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "asked.txt")))
      const messages = out.stdout.split("\n").filter((l) => l !== "").map((l) => {
        const decoded = decodeMessage(JSON.parse(l))
        if (decoded._tag === "Failure") throw new Error(`${l}: ${decoded.failure.message}`)
        return decoded.success
      })
      const items = Item.fromIterable(messages)
      const results = items.filter(Filter.toolResult())
      assert.deepStrictEqual(results.map((r) => r.isError), [false, true, true])
      assert.include(String(results[1]!.block.content), "no secrets")
      assert.include(JSON.stringify(results[2]!.block.content), "needs approval (the policy's default asks)")
      assert.deepStrictEqual(
        items.filter(Filter.and(Filter.toolResult(), Filter.permissionDenied)).map((r) => r.toolUseId),
        [results[1]!.toolUseId, results[2]!.toolUseId]
      )
    }), 60_000)

  it.effect("a policy that does not read is a usage error; warnings go to standard error", () =>
    Effect.gen(function*() {
      const sandbox = yield* sandboxWith({ "bad.txt": "allow tool:Read\npermit tool:Bash", "open.txt": "allow all" }, () =>
        Script.make([Script.turn("Done.")]))
      const bad = yield* run(sandbox, ["--policy", path.join(sandbox.cwd, "bad.txt")])
      assert.strictEqual(bad.code, ExitCode.Usage)
      assert.include(bad.stderr, "policy line 2: expected allow, deny, ask or default, found \"permit\"")
      const missing = yield* run(sandbox, ["--policy", path.join(sandbox.cwd, "none.txt")])
      assert.strictEqual(missing.code, ExitCode.Usage)
      assert.include(missing.stderr, "no such file")
      const open = yield* run(sandbox, ["--format", "json", "--policy", path.join(sandbox.cwd, "open.txt")])
      assert.strictEqual(open.code, 0, open.stderr)
      assert.include(open.stderr, "rule 1 (allow all): every call is allowed")
    }), 60_000)
})
