import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"

layer(NodeServices.layer, { excludeTestServices: true })("ClaudeSandbox", (it) => {
  it.effect("creates an isolated, offline home and cwd, removed with its scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const sandbox = yield* ClaudeSandbox.make({
        baseUrl: "http://127.0.0.1:9",
        files: { "a.txt": "alpha", "deep/b.txt": "beta" }
      }).pipe(Scope.provide(scope))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "deep/b.txt"), "utf8"), "beta")
      assert.isTrue(fs.statSync(sandbox.home).isDirectory())
      assert.notStrictEqual(sandbox.home, process.env.HOME)
      assert.include(sandbox.env, {
        HOME: sandbox.home,
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
        ANTHROPIC_API_KEY: "sk-ant-test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
      })
      // Credentials and overrides from the parent never leak in.
      for (const key of Object.keys(sandbox.env)) assert.notMatch(key, /AUTH_TOKEN|OAUTH|ANTHROPIC_MODEL|PROXY/)
      assert.isTrue(fs.existsSync(sandbox.executable))
      assert.strictEqual(ClaudeSandbox.withBaseUrl(sandbox, "http://x").env.ANTHROPIC_BASE_URL, "http://x")
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(fs.existsSync(sandbox.home))
      assert.isFalse(fs.existsSync(sandbox.cwd))
    }))

  it.effect("a missing executable fails listing where it looked", () =>
    Effect.gen(function*() {
      const error = yield* ClaudeSandbox.findExecutable("/nonexistent/claude").pipe(Effect.flip)
      assert.strictEqual(error._tag, "SandboxError")
      assert.strictEqual(error.reason._tag, "ExecutableNotFound")
      assert.deepStrictEqual((error.reason as ClaudeSandbox.ExecutableNotFound).searched, ["/nonexistent/claude"])
      assert.include(error.message, "/nonexistent/claude")
    }))
})
