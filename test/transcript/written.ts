/**
 * Transcript entries as the pinned CLI's code builds them (the object literal at the writer named in the
 * comment, read from its bundle), for the suites that decode them one by one (Entries, Decode) and the one that
 * counts a directory holding every entry type (EntryTypes).
 */

export const sessionId = "8d3f7a52-1c4e-4b8a-9f2d-6e5b4c3a2b1d"
export const timestamp = "2026-11-20T17:34:37.000Z"

export interface Case {
  readonly line: Record<string, unknown>
  readonly tag: string
  /** A field and the value it decodes to. */
  readonly field: string
  readonly value: unknown
  /** A field set to a value of the wrong type. */
  readonly broken: readonly [string, unknown]
}

export const bookkeeping: ReadonlyArray<Case> = [
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

// The session state entries and progress: the line, its class, a field and the value it decodes to.
const envelope = { uuid: "u2", parentUuid: "u1", isSidechain: false, sessionId: "s", timestamp: "2026-01-01T00:00:00Z" }
const state = { sessionId: "s" }
// One line of each, with a field this version does not know.
export const stateLines: ReadonlyArray<readonly [Record<string, unknown>, string, string, unknown]> = [
  [{ type: "progress", ...envelope, toolUseID: "t1", parentToolUseID: "t1", data: { type: "bash_progress", output: "x" } }, "ProgressEntry", "toolUseID", "t1"],
  [{ type: "relocated", ...state, relocatedCwd: "/work/moved" }, "RelocatedEntry", "relocatedCwd", "/work/moved"],
  [{ type: "content-replacement", ...state, agentId: "a1", replacements: [{ toolUseId: "t1" }] }, "ContentReplacementEntry", "agentId", "a1"],
  [{ type: "mode", ...state, mode: "coordinator" }, "ModeEntry", "mode", "coordinator"],
  [{ type: "permission-mode", ...state, permissionMode: "plan" }, "PermissionModeEntry", "permissionMode", "plan"],
  [{ type: "pr-link", ...state, prNumber: 12, prUrl: "https://github.com/o/r/pull/12", prRepository: "o/r", timestamp: "t" }, "PrLinkEntry", "prNumber", 12],
  [{ type: "worktree-state", ...state, worktreeSession: { worktreePath: "/w/t" } }, "WorktreeStateEntry", "worktreeSession", { worktreePath: "/w/t" }],
  [{ type: "worktree-state", ...state, worktreeSession: null }, "WorktreeStateEntry", "worktreeSession", null],
  [{ type: "agent-name", ...state, agentName: "reviewer" }, "AgentNameEntry", "agentName", "reviewer"],
  [{ type: "agent-color", ...state, agentColor: "blue" }, "AgentColorEntry", "agentColor", "blue"],
  [{ type: "agent-setting", ...state, agentSetting: "reviewer" }, "AgentSettingEntry", "agentSetting", "reviewer"],
  [{ type: "frame-link", ...state, path: "p", frameUrl: "u", title: "T", artifactCount: 2, timestamp: "t" }, "FrameLinkEntry", "artifactCount", 2],
  [{ type: "memory-mode", ...state, mode: "auto", afterUuid: "u1", timestamp: "t", reason: "switch" }, "MemoryModeEntry", "afterUuid", "u1"]
]
