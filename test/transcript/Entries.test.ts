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

const sessionId = "8d3f7a52-1c4e-4b8a-9f2d-6e5b4c3a2b1d"
const timestamp = "2026-11-20T17:34:37.000Z"

interface Case {
  readonly line: Record<string, unknown>
  readonly tag: string
  /** A field and the value it decodes to. */
  readonly field: string
  readonly value: unknown
  /** A field set to a value of the wrong type. */
  readonly broken: readonly [string, unknown]
}

const cases: ReadonlyArray<Case> = [
  {
    // FileHistory's tracked edit ("FileHistory: Failed to record delta"): the backup of one file added to
    // the last snapshot; a deleted file's backup has `backupFileName: null`.
    line: {
      type: "file-history-delta",
      messageId: "m2",
      snapshotMessageId: "m1",
      trackingPath: "src/a.ts",
      backup: { backupFileName: "3f2a@v2", version: 2, backupTime: timestamp },
      timestamp
    },
    tag: "FileHistoryDeltaEntry",
    field: "trackingPath",
    value: "src/a.ts",
    broken: ["backup", { backupFileName: "3f2a@v2", version: "2" }]
  },
  {
    // The REPL toggle, and the session metadata written again on a resume.
    line: { type: "repl-mode", replMode: true, typedEvents: true, sessionId },
    tag: "ReplModeEntry",
    field: "replMode",
    value: true,
    broken: ["replMode", "on"]
  },
  {
    // saveBridgeSession; clearBridgeSession writes `bridgeSessionId: ""`, `lastSequenceNum: 0` alone.
    line: {
      type: "bridge-session",
      sessionId,
      bridgeSessionId: "session_01abc",
      lastSequenceNum: 42,
      declaredDialogKinds: ["permission"],
      sessionGroupingId: "g1",
      noHistoryBackfill: true,
      ownerAccountUuid: "acc-1",
      ownerOrganizationUuid: "org-1"
    },
    tag: "BridgeSessionEntry",
    field: "lastSequenceNum",
    value: 42,
    broken: ["lastSequenceNum", "42"]
  },
  {
    // The handoff to a background session.
    line: { type: "continued-in", timestamp, sessionId, continuedInSessionId: "b7e1c2d3-0000-4000-8000-000000000001" },
    tag: "ContinuedInEntry",
    field: "continuedInSessionId",
    value: "b7e1c2d3-0000-4000-8000-000000000001",
    broken: ["continuedInSessionId", null]
  },
  {
    // markSessionEndedByModel.
    line: { type: "ended-by-model", timestamp, sessionId },
    tag: "EndedByModelEntry",
    field: "sessionId",
    value: sessionId,
    broken: ["timestamp", 1]
  },
  {
    // The resume head's vouch row, `sessionId` the transcript's file name.
    line: { type: "resume-head-vouch", sessionId, sum: "9c1d0e4f" },
    tag: "ResumeHeadVouchEntry",
    field: "sum",
    value: "9c1d0e4f",
    broken: ["sum", 7]
  },
  {
    // A paused request answered (request replay's `appendResumed`), with the main session's request fields.
    line: {
      type: "api-request-resumed",
      sessionId,
      timestamp,
      version: "2.1.330",
      requestRef: "req-rec-1",
      requestNotRecorded: false,
      messageId: "msg_01",
      pausedRequestId: "req_01",
      resumedRequestId: "req_02"
    },
    tag: "ApiRequestResumedEntry",
    field: "resumedRequestId",
    value: "req_02",
    broken: ["pausedRequestId", 1]
  },
  {
    // The session owner set from the account, re-written with the session metadata.
    line: { type: "session-owner", accountUuid: "acc-1", organizationUuid: "org-1", sessionId },
    tag: "SessionOwnerEntry",
    field: "accountUuid",
    value: "acc-1",
    broken: ["accountUuid", null]
  },
  {
    // One organization of a subagent's file.
    line: { type: "hybrid-organization", organizationUuid: "org-2", sessionId, agentId: "a1" },
    tag: "HybridOrganizationEntry",
    field: "organizationUuid",
    value: "org-2",
    broken: ["organizationUuid", 2]
  },
  {
    // saveIsolationLatch, once a connector's download is in reach.
    line: { type: "isolation-latch", side: "connectors", sessionId },
    tag: "IsolationLatchEntry",
    field: "side",
    value: "connectors",
    broken: ["side", true]
  },
  {
    // saveDevModsFolder.
    line: { type: "dev-mods", folder: "/work/.claude/dev-mods/s1", sessionId },
    tag: "DevModsEntry",
    field: "folder",
    value: "/work/.claude/dev-mods/s1",
    broken: ["folder", ["x"]]
  },
  {
    // A fork inheriting a suppressed history (`cause: "fork_inherit"`), vetoed against an account.
    line: { type: "history-suppression", sessionId, cause: "fork_inherit", vetoedAgainstAccountUuid: "acc-2", ts: timestamp },
    tag: "HistorySuppressionEntry",
    field: "cause",
    value: "fork_inherit",
    broken: ["cause", 0]
  },
  {
    // The comment monitors of the session's artifacts.
    line: { type: "artifact-comment-monitor", v: 1, sessionId, artifacts: { "a-slug": { state: "armed", writtenAtMs: 1, title: "Plan" } } },
    tag: "ArtifactCommentMonitorEntry",
    field: "artifacts",
    value: { "a-slug": { state: "armed", writtenAtMs: 1, title: "Plan" } },
    broken: ["artifacts", []]
  },
  {
    // The auto-reaction ledger of the account.
    line: { type: "artifact-autoreact-ledger", v: 1, sessionId, accountUuid: "acc-1", artifacts: { "a-slug": { sent: [] } } },
    tag: "ArtifactAutoreactLedgerEntry",
    field: "accountUuid",
    value: "acc-1",
    broken: ["artifacts", "none"]
  },
  {
    // The attribution state as of a message (the 2.1.330 loader keys it by `messageId`).
    line: { type: "attribution-snapshot", messageId: "m2", surface: "cli", fileStates: {}, promptCount: 1 },
    tag: "AttributionSnapshotEntry",
    field: "messageId",
    value: "m2",
    broken: ["messageId", 2]
  },
  {
    // A forked subagent's context: the parent's messages up to `parentLastUuid`.
    line: { type: "fork-context-ref", agentId: "a1", parentSessionId: sessionId, parentLastUuid: "u9", contextLength: 9 },
    tag: "ForkContextRefEntry",
    field: "contextLength",
    value: 9,
    broken: ["contextLength", "9"]
  },
  {
    // The observer of the main session, with every observer by type once there are two.
    line: {
      type: "observer-ref",
      observerTaskId: "t2",
      observerAgentType: "reviewer",
      observerTaskIds: { reviewer: "t2", tester: "t3" },
      timestamp
    },
    tag: "ObserverRefEntry",
    field: "observerTaskIds",
    value: { reviewer: "t2", tester: "t3" },
    broken: ["observerTaskId", 2]
  },
  {
    // A row a script's tool call wrote.
    line: { type: "host-row", sessionId, agentId: "a1", timestamp, ranByToolUseId: "toolu_01" },
    tag: "HostRowEntry",
    field: "ranByToolUseId",
    value: "toolu_01",
    broken: ["ranByToolUseId", undefined]
  },
  {
    // A subagent's data flow records, replacing the earlier ones.
    line: { type: "data-flow-records", v: 1, sessionId, agentId: "a1", records: [{ response_id: "r1" }], snapshot: true },
    tag: "DataFlowRecordsEntry",
    field: "snapshot",
    value: true,
    broken: ["records", {}]
  },
  {
    // The loss codes of the session's data flow.
    line: { type: "data-flow-incomplete", v: 1, sessionId, codes: [1, 3] },
    tag: "DataFlowIncompleteEntry",
    field: "codes",
    value: [1, 3],
    broken: ["codes", ["x"]]
  },
  {
    // A subagent's .meta.json as a session store holds it.
    line: { type: "agent_metadata", agentType: "general-purpose", description: "Look", toolUseId: "toolu_1", spawnDepth: 1 },
    tag: "AgentMetadataEntry",
    field: "toolUseId",
    value: "toolu_1",
    broken: ["agentType", 3]
  }
]

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
    }).pipe(Effect.scoped), 120_000)
})
