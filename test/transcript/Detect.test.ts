/**
 * Telling a transcript from stream-json: by the first line that tells, and by the keys a first line starts
 * with when it is longer than what was read.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Input from "../../src/cli/Input.ts"
import * as TranscriptDetect from "../../src/transcript/Detect.ts"
import * as Run from "../cli/support/Run.ts"

const { detect } = TranscriptDetect

// A user entry whose text makes its line `bytes` long, envelope keys first as the CLI writes them.
const longUserLine = (bytes: number) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    sessionId: "93a9705e-bc6a-406d-8dce-8acc014dedbd",
    version: "1.0.56",
    type: "user",
    message: { role: "user", content: "x".repeat(bytes) },
    uuid: "523a67c0-a9bf-4cef-b886-d71f390b5a2f",
    timestamp: "2025-07-19T22:21:00.576Z"
  })

describe("format detection", () => {
  it("whole lines", () => {
    assert.strictEqual(detect("{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u\"}\n"), "transcript")
    assert.strictEqual(detect("{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n"), "stream-json")
    assert.strictEqual(detect(""), "stream-json")
  })

  it("a first line longer than the text read: by the keys it starts with", () => {
    const head = longUserLine(200_000).slice(0, Input.detectBytes)
    assert.strictEqual(detect(head), "transcript")
    assert.strictEqual(detect("{\"type\": \"summary\", \"summary\": \"a \\\"quoted"), "transcript")
    assert.strictEqual(detect("{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\",\"tools\":[\"Bash\""), "stream-json")
    // A first key whose value is an object or array ends what the start tells.
    assert.strictEqual(detect("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"sessionId\":\"s\""), "stream-json")
  })

  it("the bin reads a transcript whose first line is longer than the detection window", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-detect-"))
    try {
      const file = path.join(dir, "long.jsonl")
      const lines = [longUserLine(200_000), longUserLine(10)]
      fs.writeFileSync(file, lines.join("\n") + "\n")
      const stats = JSON.parse(Run.cli(["stats", "--format", "json", file]).stdout).files[0]
      assert.strictEqual(stats.lines, 2)
      assert.strictEqual(stats.decoded, 2)
      assert.strictEqual(stats.failed, 0)
      const view = Run.cli(["view", "--format", "jsonl", file])
      assert.strictEqual(view.status, 0, view.stderr)
      assert.strictEqual(view.stdout.trim().split("\n").length, 2)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
