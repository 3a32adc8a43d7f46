/**
 * A transcript whose parentUuid links go round (no entry ends the conversation): reading it terminates, with
 * the messages the official SDK's `getSessionMessages` gives (none).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SessionFiles from "../../src/store/SessionFiles.ts"

const sessionId = "aaaaaaaa-0000-4000-8000-0000000000c1"
const entry = (type: "user" | "assistant", uuid: string, parentUuid: string) => ({
  type,
  uuid,
  parentUuid,
  isSidechain: false,
  sessionId,
  timestamp: "2026-01-01T00:00:00.000Z",
  message: type === "user"
    ? { role: "user", content: "q" }
    : { id: `msg_${uuid}`, type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "r" }], usage: { input_tokens: 1, output_tokens: 1 } }
})

layer(NodeServices.layer)("a parentUuid cycle", (it) => {
  it.effect("ends, with what the SDK reads", () =>
    Effect.gen(function*() {
      const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
      const dir = path.join(configDir, "projects", "-work")
      fs.mkdirSync(dir, { recursive: true })
      const lines = [entry("user", "u1", "a2"), entry("assistant", "a1", "u1"), entry("user", "u2", "a1"), entry("assistant", "a2", "u2")]
      fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.map((e) => JSON.stringify(e) + "\n").join(""))
      const files = yield* SessionFiles.make({ configDir })
      const ours = Array.from(yield* Stream.runCollect(files.messages(sessionId)), (m) => m.uuid)
      const before = process.env.CLAUDE_CONFIG_DIR
      process.env.CLAUDE_CONFIG_DIR = configDir
      const theirs = yield* Effect.promise(() =>
        import("@anthropic-ai/claude-agent-sdk").then((sdk) => sdk.getSessionMessages(sessionId))
      ).pipe(Effect.ensuring(Effect.sync(() => {
        if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR
        else process.env.CLAUDE_CONFIG_DIR = before
      })))
      assert.deepStrictEqual(ours, theirs.map((m) => m.uuid))
      assert.deepStrictEqual(ours, [])
    }))
})
