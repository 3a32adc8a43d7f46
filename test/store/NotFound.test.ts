/**
 * What SessionFiles says when a session or subagent is not there: where it looked, in a message that stays
 * short on a config directory with many projects.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SessionFiles from "../../src/store/SessionFiles.ts"

const sessionId = "aaaaaaaa-0000-4000-8000-00000000000c"
const user = JSON.stringify({ type: "user", uuid: "u1", parentUuid: null, sessionId, message: { role: "user", content: "Hi" } })

layer(NodeServices.layer)("SessionFiles: not found", (it) => {
  it.effect("names where it looked, the project directories cut short", () =>
    Effect.gen(function*() {
      const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
      const projects = Array.from({ length: 12 }, (_, i) => path.join(configDir, "projects", `-project-${String(i).padStart(2, "0")}`))
      for (const dir of projects) fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(projects[0]!, `${sessionId}.jsonl`), user + "\n")
      const files = yield* SessionFiles.make({ configDir })

      const session = yield* Effect.flip(Stream.runCollect(files.messages("aaaaaaaa-0000-4000-8000-0000000000ff")))
      assert.strictEqual(session.reason._tag, "SessionNotFound")
      assert.strictEqual(session.reason._tag === "SessionNotFound" && session.reason.searched?.length, 12)
      assert.include(session.message, "looked in 12 directories: ")
      assert.notInclude(session.message, "-project-11")

      const agent = yield* Effect.flip(Stream.runCollect(files.subagentMessages(sessionId, "nobody")))
      assert.strictEqual(agent.message, `Subagent nobody of session ${sessionId} not found (looked in ${path.join(projects[0]!, sessionId)})`)
    }))
})
