/**
 * The bookkeeping and state entries and the system notes Claude Code 2.1.330 writes to its transcripts, one
 * line each as the CLI builds it (the object literal at the writer named in the comment, read from the
 * pinned CLI's bundle), decode to their typed entry; each with a broken field is a typed error naming it.
 * The real CLI writes one of them in a test too.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Transcript from "../../src/schema/Transcript.ts"
import type * as Scenario from "../../src/testing/Scenario.ts"
import * as Script from "../../src/testing/Script.ts"
import { DecodeError } from "../../src/stream/DecodeError.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import { decodeKnown, jsonlFiles, rawEntries, realConfigDirs } from "./support.ts"
import { bookkeeping as cases, sessionId, timestamp } from "./written.ts"

describe("entries of CLI 2.1.330", () => {
  for (const { broken: [brokenField, brokenValue], field, line, tag, value } of cases) {
    describe(line.type as string, () => {
      it("decodes to its entry, a field added later ignored", () => {
        const entry = decodeKnown(line, tag)
        assert.deepStrictEqual(entry[field], value)
        assert.isFalse(Transcript.isConversation(entry as unknown as Transcript.Entry))
      })

      it("a broken one is a typed error naming the field", () => {
        const result = Transcript.decodeEntry({ ...line, [brokenField]: brokenValue })
        assert.isTrue(Result.isFailure(result), `${line.type} with ${brokenField}: ${JSON.stringify(brokenValue)}`)
        const error = (result as Result.Failure<never, Transcript.TranscriptEntryError>).failure
        assert.strictEqual(error.reason._tag, "InvalidFields")
        assert.strictEqual((error.reason as Transcript.InvalidFields).entryType, line.type)
        assert.include(error.message, brokenField)
      })
    })
  }
})

// System notes of the interactive CLI, each as its builder makes it, with the envelope the transcript writer adds.
const envelope = { parentUuid: "u1", isSidechain: false, sessionId, cwd: "/work", version: "2.1.330", gitBranch: "main", userType: "external" }
const notes: ReadonlyArray<Record<string, unknown>> = [
  {
    subtype: "model_fallback",
    content: "Switched to claude-sonnet-4-5",
    level: "warning",
    trigger: "overloaded",
    originalModel: "claude-opus-4-6",
    fallbackModel: "claude-sonnet-4-5"
  },
  {
    subtype: "model_refusal_fallback",
    direction: "retry",
    scope: "local",
    content: "Retried with claude-sonnet-4-5",
    level: "warning",
    trigger: "refusal",
    originalModel: "claude-opus-4-6",
    fallbackModel: "claude-sonnet-4-5",
    requestId: "req_01",
    apiRefusalCategory: "cyber",
    apiRefusalExplanation: null
  },
  {
    subtype: "model_refusal_no_fallback",
    content: "The model declined",
    level: "warning",
    originalModel: "claude-opus-4-6",
    requestId: "req_01",
    refusedUserMessageUuid: "u1"
  },
  {
    subtype: "model_consent_fallback",
    content: "Using claude-sonnet-4-5",
    level: "warning",
    choice: "fallback",
    originalModel: "claude-opus-4-6",
    fallbackModel: "claude-sonnet-4-5",
    persistedAsDefault: false
  },
  { subtype: "permission_retry", content: "Allowed Bash. Retrying.", commands: ["Bash"], heardAtNextPrompt: false, level: "info" },
  { subtype: "bridge_status", content: "/remote-control is active", url: "https://claude.ai/code/s1" },
  { subtype: "cloud_session_status", content: "Running in the cloud", entry: {}, url: "https://claude.ai/code/s1", level: "notice" },
  { subtype: "scheduled_task_fire", content: "Task fired", taskId: "t1", cron: "*/5 * * * *", prompt: "check the build" },
  { subtype: "memory_saved", writtenPaths: ["/home/u/.claude/CLAUDE.md"] },
  { subtype: "agents_killed" },
  { subtype: "file_snapshot", content: "File snapshot", level: "info", isMeta: true, snapshotFiles: [{ key: "k", path: "", content: "x" }] },
  { subtype: "rewind_stand_in", source_uuid: "u0", content: "", level: "info" }
]

describe("system notes of CLI 2.1.330", () => {
  notes.forEach((note, i) => {
    const line = { type: "system", isMeta: false, timestamp, uuid: `n${i}`, ...envelope, ...note }
    describe(note.subtype as string, () => {
      it("is a note of the conversation", () => {
        const result = Transcript.decodeEntry(line)
        assert.isTrue(Result.isSuccess(result), String(Result.isFailure(result) && result.failure.message))
        const entry = (result as Result.Success<Transcript.Entry, never>).success
        assert.strictEqual(entry._tag, "SystemNoteEntry")
        assert.strictEqual((entry as Transcript.SystemNoteEntry).subtype, note.subtype)
        assert.isTrue(Transcript.isConversation(entry) && entry.uuid === `n${i}`)
        assert.isTrue(Transcript.isKnownType("system", note.subtype as string))
      })

      it("a broken one is a typed error", () => {
        const result = Transcript.decodeEntry({ ...line, uuid: 3 })
        assert.isTrue(Result.isFailure(result))
        const error = (result as Result.Failure<never, Transcript.TranscriptEntryError>).failure
        assert.strictEqual((error.reason as Transcript.InvalidFields).subtype, note.subtype)
        assert.include(error.message, "uuid")
      })
    })
  })
})

// With file checkpointing (the SDK's `enableFileCheckpointing`), an edit of a file the last snapshot does not
// track adds its backup to that snapshot as a `file-history-delta` entry.
const checkpointedEdit: Scenario.Scenario = {
  name: "checkpointed_edit",
  description: "",
  prompt: "Fix the greeting in app.js.",
  args: ["--permission-mode", "acceptEdits"],
  env: { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: "true" },
  files: { "app.js": "console.log(\"helo world\")\n" },
  script: ({ cwd }) =>
    Script.make([
      Script.turn([Script.toolUse("Read", { file_path: `${cwd}/app.js` })]),
      Script.turn([Script.toolUse("Edit", { file_path: `${cwd}/app.js`, old_string: "helo world", new_string: "hello world" })]),
      Script.turn("Fixed.")
    ])
}

describe("entries the real CLI writes", () => {
  it.live("an edit with file checkpointing: a file-history-delta, no unknown entries", () =>
    Effect.gen(function*() {
      const [dir] = yield* realConfigDirs([checkpointedEdit])
      const files = jsonlFiles(path.join(dir!, "projects"))
      assert.isAbove(files.length, 0)
      const raw = files.flatMap(rawEntries)
      const entries = files.flatMap((file) =>
        TranscriptDecode.decodeAll(fs.readFileSync(file)).map((record) => {
          if (record instanceof DecodeError) throw new Error(`${file}: ${record.message}`)
          return record.entry
        })
      )
      assert.strictEqual(entries.length, raw.length)
      assert.deepStrictEqual(entries.filter((e) => e._tag === "UnknownEntry").map((e) => (e as Transcript.UnknownEntry).type), [])
      const deltas = entries.filter((e): e is Transcript.FileHistoryDeltaEntry => e._tag === "FileHistoryDeltaEntry")
      assert.isAbove(deltas.length, 0)
      assert.isTrue(deltas.some((d) => d.trackingPath.endsWith("app.js")), JSON.stringify(deltas))
    }), 120_000)
})
