/**
 * The recorded fixtures match the bundled scenarios (re-record with `npm run fixtures:record`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import { fixturesDir, readLines } from "../support/Corpus.ts"

const recorded = path.join(fixturesDir, "recorded")
const readme = fs.readFileSync(path.join(fixturesDir, "README.md"), "utf8")

describe("recorded fixtures", () => {
  for (const scenario of Scenarios.all) {
    for (const file of [`${scenario.name}.jsonl`, `${scenario.name}.partial.jsonl`]) {
      it(file, () => {
        const full = path.join(recorded, file)
        if (!fs.existsSync(full)) {
          // Only a run the CLI refused outright (bypassPermissions as root) leaves no file, and says so.
          assert.include(readme, `${file} (not written: the CLI printed nothing; stderr: `)
          return
        }
        const messages = readLines(full).map(({ line, text }) => {
          try {
            return JSON.parse(text)
          } catch (e) {
            throw new Error(`${file}:${line} is not JSON: ${String(e)}`)
          }
        })
        assert.strictEqual(messages[0].type, "system")
        assert.strictEqual(messages[0].subtype, "init")
        assert.strictEqual(messages.at(-1).type, "result")
        // One result per user message; a background subagent's completion adds one more.
        assert.isAtLeast(messages.filter((m) => m.type === "result").length, scenario.input?.length ?? 1)
        const streamed = messages.some((m) => m.type === "assistant" && m.message.model !== "<synthetic>")
        assert.strictEqual(
          messages.some((m) => m.type === "stream_event"),
          file.endsWith(".partial.jsonl") && streamed
        )
        // The sandbox's random temp directory is normalized away.
        assert.notMatch(fs.readFileSync(full, "utf8"), /claude-sandbox-[A-Za-z0-9]{6}/)
        assert.include(readme, `\`${file}\``)
      })
    }
  }
})
