/**
 * The session state entries of a transcript: what the CLI restores on a resume (where the session moved,
 * its modes, agent, pull request, worktree, replaced tool results, frames, memory mode, owner, bridge,
 * isolation, watched artifacts), one entry per change, written by Claude Code 2.1.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import {
  JsonObject,
  Num,
  optionalBoolean,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalUnknown
} from "../../schema/internal/fields.ts"

const stateFields = { sessionId: optionalString, timestamp: optionalString } as const

/**
 * The directory the session moved to (`cd` out of its project).
 *
 * @since 0.1.0
 * @category schemas
 */
export class RelocatedEntry extends Schema.Class<RelocatedEntry>("effect-claude-code/Transcript/RelocatedEntry")({
  _tag: Schema.tagDefaultOmit("RelocatedEntry"),
  type: Schema.tag("relocated"),
  relocatedCwd: Schema.String,
  ...stateFields
}) {}

/**
 * Tool results the CLI replaced in the context (with a file reference or a summary), for a resume to
 * replace them again; `agentId` names a subagent's.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContentReplacementEntry
  extends Schema.Class<ContentReplacementEntry>("effect-claude-code/Transcript/ContentReplacementEntry")({
    _tag: Schema.tagDefaultOmit("ContentReplacementEntry"),
    type: Schema.tag("content-replacement"),
    replacements: Schema.Array(Schema.Unknown),
    agentId: optionalString,
    ...stateFields
  })
{}

/**
 * The session's mode.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ModeEntry extends Schema.Class<ModeEntry>("effect-claude-code/Transcript/ModeEntry")({
  _tag: Schema.tagDefaultOmit("ModeEntry"),
  type: Schema.tag("mode"),
  mode: Schema.String,
  ...stateFields
}) {}

/**
 * The session's permission mode (`default`, `plan`, `acceptEdits`, ...).
 *
 * @since 0.1.0
 * @category schemas
 */
export class PermissionModeEntry extends Schema.Class<PermissionModeEntry>("effect-claude-code/Transcript/PermissionModeEntry")({
  _tag: Schema.tagDefaultOmit("PermissionModeEntry"),
  type: Schema.tag("permission-mode"),
  permissionMode: Schema.String,
  ...stateFields
}) {}

/**
 * The pull request the session is linked to.
 *
 * @since 0.1.0
 * @category schemas
 */
export class PrLinkEntry extends Schema.Class<PrLinkEntry>("effect-claude-code/Transcript/PrLinkEntry")({
  _tag: Schema.tagDefaultOmit("PrLinkEntry"),
  type: Schema.tag("pr-link"),
  prNumber: Num,
  prUrl: Schema.String,
  prRepository: Schema.String,
  ...stateFields
}) {}

/**
 * The git worktree the session works in (`null` once it left it); its fields are kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class WorktreeStateEntry extends Schema.Class<WorktreeStateEntry>("effect-claude-code/Transcript/WorktreeStateEntry")({
  _tag: Schema.tagDefaultOmit("WorktreeStateEntry"),
  type: Schema.tag("worktree-state"),
  worktreeSession: Schema.NullOr(JsonObject),
  ...stateFields
}) {}

/**
 * The name given to the session's agent.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AgentNameEntry extends Schema.Class<AgentNameEntry>("effect-claude-code/Transcript/AgentNameEntry")({
  _tag: Schema.tagDefaultOmit("AgentNameEntry"),
  type: Schema.tag("agent-name"),
  agentName: Schema.String,
  ...stateFields
}) {}

/**
 * The color given to the session's agent.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AgentColorEntry extends Schema.Class<AgentColorEntry>("effect-claude-code/Transcript/AgentColorEntry")({
  _tag: Schema.tagDefaultOmit("AgentColorEntry"),
  type: Schema.tag("agent-color"),
  agentColor: Schema.String,
  ...stateFields
}) {}

/**
 * The agent definition the session runs as (`--agent`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class AgentSettingEntry extends Schema.Class<AgentSettingEntry>("effect-claude-code/Transcript/AgentSettingEntry")({
  _tag: Schema.tagDefaultOmit("AgentSettingEntry"),
  type: Schema.tag("agent-setting"),
  agentSetting: Schema.String,
  ...stateFields
}) {}

/**
 * A frame (an artifact the session made) linked to the session, and how many there are.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FrameLinkEntry extends Schema.Class<FrameLinkEntry>("effect-claude-code/Transcript/FrameLinkEntry")({
  _tag: Schema.tagDefaultOmit("FrameLinkEntry"),
  type: Schema.tag("frame-link"),
  artifactCount: Num,
  path: optionalString,
  frameUrl: optionalString,
  title: optionalString,
  ...stateFields
}) {}

/**
 * The memory mode from the message `afterUuid` on.
 *
 * @since 0.1.0
 * @category schemas
 */
export class MemoryModeEntry extends Schema.Class<MemoryModeEntry>("effect-claude-code/Transcript/MemoryModeEntry")({
  _tag: Schema.tagDefaultOmit("MemoryModeEntry"),
  type: Schema.tag("memory-mode"),
  mode: Schema.String,
  afterUuid: optionalNullableString,
  reason: optionalUnknown,
  account: optionalUnknown,
  accountChoice: optionalUnknown,
  ...stateFields
}) {}

/**
 * Whether the session runs in REPL mode (the model calls tools from code); `typedEvents` when the REPL
 * reports typed events.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ReplModeEntry extends Schema.Class<ReplModeEntry>("effect-claude-code/Transcript/ReplModeEntry")({
  _tag: Schema.tagDefaultOmit("ReplModeEntry"),
  type: Schema.tag("repl-mode"),
  replMode: Schema.Boolean,
  typedEvents: optionalBoolean,
  /** Set on the copy of the entry that a branch (`/branch`) writes; kept as written. */
  cloudsOnly: optionalBoolean,
  ...stateFields
}) {}

/**
 * The remote-control bridge session the session is attached to (`bridgeSessionId` empty once detached),
 * and the last event sequence number it saw.
 *
 * @since 0.1.0
 * @category schemas
 */
export class BridgeSessionEntry extends Schema.Class<BridgeSessionEntry>("effect-claude-code/Transcript/BridgeSessionEntry")({
  _tag: Schema.tagDefaultOmit("BridgeSessionEntry"),
  type: Schema.tag("bridge-session"),
  bridgeSessionId: Schema.String,
  lastSequenceNum: Num,
  declaredDialogKinds: optionalStrings,
  sessionGroupingId: optionalString,
  noHistoryBackfill: optionalBoolean,
  ownerAccountUuid: optionalString,
  ownerOrganizationUuid: optionalString,
  ...stateFields
}) {}

/**
 * The account the session belongs to.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SessionOwnerEntry extends Schema.Class<SessionOwnerEntry>("effect-claude-code/Transcript/SessionOwnerEntry")({
  _tag: Schema.tagDefaultOmit("SessionOwnerEntry"),
  type: Schema.tag("session-owner"),
  accountUuid: Schema.String,
  organizationUuid: optionalString,
  ...stateFields
}) {}

/**
 * An organization whose account wrote to the session (one entry per organization), for sessions that
 * span more than one; `agentId` names a subagent's.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HybridOrganizationEntry
  extends Schema.Class<HybridOrganizationEntry>("effect-claude-code/Transcript/HybridOrganizationEntry")({
    _tag: Schema.tagDefaultOmit("HybridOrganizationEntry"),
    type: Schema.tag("hybrid-organization"),
    organizationUuid: Schema.String,
    agentId: optionalString,
    ...stateFields
  })
{}

/**
 * The side (`web`, `connectors`, ...) the session is latched to once it has used one, so data from
 * one never reaches the other.
 *
 * @since 0.1.0
 * @category schemas
 */
export class IsolationLatchEntry extends Schema.Class<IsolationLatchEntry>("effect-claude-code/Transcript/IsolationLatchEntry")({
  _tag: Schema.tagDefaultOmit("IsolationLatchEntry"),
  type: Schema.tag("isolation-latch"),
  side: Schema.String,
  ...stateFields
}) {}

/**
 * The folder of local modifications the session runs with.
 *
 * @since 0.1.0
 * @category schemas
 */
export class DevModsEntry extends Schema.Class<DevModsEntry>("effect-claude-code/Transcript/DevModsEntry")({
  _tag: Schema.tagDefaultOmit("DevModsEntry"),
  type: Schema.tag("dev-mods"),
  folder: Schema.String,
  ...stateFields
}) {}

/**
 * The session's history is kept out of lists and sharing, and why (`cause`); `ts` is when.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HistorySuppressionEntry
  extends Schema.Class<HistorySuppressionEntry>("effect-claude-code/Transcript/HistorySuppressionEntry")({
    _tag: Schema.tagDefaultOmit("HistorySuppressionEntry"),
    type: Schema.tag("history-suppression"),
    cause: Schema.String,
    vetoedAgainstAccountUuid: optionalString,
    ts: optionalString,
    ...stateFields
  })
{}

/**
 * The artifacts whose comments the session watches, by artifact; each artifact's state is kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ArtifactCommentMonitorEntry
  extends Schema.Class<ArtifactCommentMonitorEntry>("effect-claude-code/Transcript/ArtifactCommentMonitorEntry")({
    _tag: Schema.tagDefaultOmit("ArtifactCommentMonitorEntry"),
    type: Schema.tag("artifact-comment-monitor"),
    v: Num,
    artifacts: JsonObject,
    ...stateFields
  })
{}

/**
 * The reactions the session sent on artifact comments, by artifact, for the account `accountUuid`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ArtifactAutoreactLedgerEntry
  extends Schema.Class<ArtifactAutoreactLedgerEntry>("effect-claude-code/Transcript/ArtifactAutoreactLedgerEntry")({
    _tag: Schema.tagDefaultOmit("ArtifactAutoreactLedgerEntry"),
    type: Schema.tag("artifact-autoreact-ledger"),
    v: optionalNumber,
    accountUuid: optionalNullableString,
    artifacts: JsonObject,
    ...stateFields
  })
{}

// The session state entries, in dispatch order: `Transcript.variants` takes them from here.
export const variants = [
  RelocatedEntry,
  ContentReplacementEntry,
  ModeEntry,
  PermissionModeEntry,
  PrLinkEntry,
  WorktreeStateEntry,
  AgentNameEntry,
  AgentColorEntry,
  AgentSettingEntry,
  FrameLinkEntry,
  MemoryModeEntry,
  ReplModeEntry,
  BridgeSessionEntry,
  SessionOwnerEntry,
  HybridOrganizationEntry,
  IsolationLatchEntry,
  DevModsEntry,
  HistorySuppressionEntry,
  ArtifactCommentMonitorEntry,
  ArtifactAutoreactLedgerEntry
] as const
