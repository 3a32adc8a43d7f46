/**
 * Every entry type the pinned CLI can append to a transcript has a schema (the list `npm run fixtures:record`
 * reads from the CLI's own tables), the entries it writes decode to their classes, and `stats` counts a
 * directory of them, the recorded transcripts with them, whole.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Transcript from "../../src/transcript/Transcript.ts"
import { recordedTranscriptsDir } from "../support/Corpus.ts"
import * as Run from "../cli/support/Run.ts"
import { jsonlFiles, rawEntries } from "./support.ts"
import { bookkeeping, stateLines } from "./written.ts"

const listed = JSON.parse(fs.readFileSync(path.join(recordedTranscriptsDir, "entry-types.json"), "utf8")) as {
  readonly cli: string
  readonly types: ReadonlyArray<string>
}
const pinned = (JSON.parse(fs.readFileSync(path.join(Run.root, "package.json"), "utf8")) as {
  readonly devDependencies: Record<string, string>
}).devDependencies["@anthropic-ai/claude-code"]!

const sessionId = "aaaaaaaa-0000-4000-8000-0000000000e1"
const timestamp = "2026-11-28T09:00:00.000Z"

// Entries as the pinned CLI's code builds them (the fields it leaves out in some cases left out), with the class
// each decodes to.
const written: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  // After `/context` as the first command: no prompt yet.
  ["LastPromptEntry", { type: "last-prompt", leafUuid: "00000000-0000-4000-8000-000000000002", sessionId }],
  // A rewind to the start.
  ["LastPromptEntry", { type: "last-prompt", leafUuid: null, explicit: true, sessionId }],
  ["FileHistoryDeltaEntry", {
    type: "file-history-delta",
    messageId: "m1",
    snapshotMessageId: "m0",
    trackingPath: "app.js",
    backup: { backupFileName: null, version: 1, backupTime: timestamp },
    timestamp
  }],
  ["ReplModeEntry", { type: "repl-mode", replMode: true, typedEvents: true, sessionId }],
  // A branch's copy.
  ["ReplModeEntry", { type: "repl-mode", cloudsOnly: true, sessionId, replMode: false }],
  // Detached.
  ["BridgeSessionEntry", { type: "bridge-session", sessionId, bridgeSessionId: "", lastSequenceNum: 0 }],
  ["BridgeSessionEntry", { type: "bridge-session", sessionId, bridgeSessionId: "b1", lastSequenceNum: 4, declaredDialogKinds: ["ask"] }],
  ["ContinuedInEntry", { type: "continued-in", timestamp, sessionId, continuedInSessionId: "aaaaaaaa-0000-4000-8000-0000000000e2" }],
  ["EndedByModelEntry", { type: "ended-by-model", timestamp, sessionId }],
  ["ResumeHeadVouchEntry", { type: "resume-head-vouch", sessionId, sum: "5f3a" }],
  ["FileHistorySnapshotEntry", {
    type: "file-history-snapshot",
    messageId: "m1",
    snapshot: { messageId: "m1", trackedFileBackups: {}, timestamp },
    isSnapshotUpdate: false
  }],
  ["SummaryEntry", { type: "summary", summary: "Greeting fixed", leafUuid: "00000000-0000-4000-8000-000000000002" }],
  ["CustomTitleEntry", { type: "custom-title", customTitle: "Fix the greeting", sessionId }],
  ["AiTitleEntry", { type: "ai-title", aiTitle: "Greeting fix", sessionId }],
  ["TagEntry", { type: "tag", tag: "review", sessionId }],
  // An imported session.
  ["DerivedFromEntry", { type: "derived-from", v: 1, sessionId, sessions: [{ type: "unknown", id: null, via: "import" }] }],
  ["ApiRequestResumedEntry", {
    type: "api-request-resumed",
    sessionId,
    timestamp,
    version: "2.1.332",
    messageId: "m1",
    pausedRequestId: "r1",
    resumedRequestId: "r2"
  }]
]

describe("the entry types of the pinned CLI", () => {
  it("were listed from the pinned version", () => {
    assert.include(listed.cli, pinned, "re-record with npm run fixtures:record after moving the pin")
    // The list is the CLI's, not empty: the conversation types and the bookkeeping ones.
    assert.includeMembers([...listed.types], ["user", "assistant", "system", "last-prompt", "file-history-delta"])
  })

  it("each has a schema", () => {
    assert.deepStrictEqual(listed.types.filter((type) => !Transcript.isKnownType(type)), [])
  })

  for (const [tag, line] of written) {
    it(`${line.type} as written decodes to ${tag}`, () => {
      const result = Transcript.decodeEntry(line)
      assert.isTrue(Result.isSuccess(result), Result.isFailure(result) ? result.failure.message : "")
      assert.strictEqual((result as Result.Success<Transcript.Entry, never>).success._tag, tag)
    })
  }

  it("stats counts a directory holding every type, the recorded transcripts with them, every line", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-entry-types-"))
    try {
      fs.cpSync(recordedTranscriptsDir, path.join(dir, "recorded"), { recursive: true })
      const lines = [...written.map(([, line]) => line), ...bookkeeping.map((c) => c.line), ...stateLines.map(([line]) => line)]
      fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
      const files = jsonlFiles(dir)
      const held = new Set(files.flatMap((file) => rawEntries(file).map((entry) => entry.type as string)))
      assert.deepStrictEqual(listed.types.filter((type) => !held.has(type)), [])
      const run = Run.cli(["stats", "--format", "json", dir])
      assert.strictEqual(run.status, 0, run.stderr)
      const { files: counted, total } = JSON.parse(run.stdout)
      assert.strictEqual(counted.length, files.length)
      assert.strictEqual(total.decoded, files.reduce((n, file) => n + rawEntries(file).length, 0))
      assert.strictEqual(total.failed, 0)
      assert.strictEqual(total.unknown, 0)
      for (const [, line] of written) assert.isAbove(total.kinds[line.type as string] ?? 0, 0, line.type as string)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
