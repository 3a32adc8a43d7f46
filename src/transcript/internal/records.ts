/**
 * The bookkeeping entries of a transcript: what the CLI records beside the conversation to rewind files,
 * replay requests, follow forks and observers, and hand a session on (where it continued, that the model
 * ended it), written by Claude Code 2.1; and the entry a session store holds a subagent's `.meta.json` as.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { Num, open, optionalBoolean, optionalNumber, optionalString, optionalUnknown } from "../../schema/internal/fields.ts"

const recordFields = { sessionId: optionalString, timestamp: optionalString } as const

/**
 * One file's backup taken before the message `messageId`, added to the snapshot of `snapshotMessageId`
 * (for rewinding) without writing the whole snapshot again.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FileHistoryDeltaEntry extends Schema.Class<FileHistoryDeltaEntry>("effect-claude-code/Transcript/FileHistoryDeltaEntry")({
  _tag: Schema.tagDefaultOmit("FileHistoryDeltaEntry"),
  type: Schema.tag("file-history-delta"),
  messageId: Schema.String,
  snapshotMessageId: Schema.String,
  trackingPath: Schema.String,
  /** `backupFileName` is `null` when the file did not exist. */
  backup: open({ backupFileName: Schema.NullOr(Schema.String), version: Num, backupTime: optionalString }),
  ...recordFields
}) {}

/**
 * Which lines the CLI attributes to the model, as of the message `messageId`; the rest is kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AttributionSnapshotEntry
  extends Schema.Class<AttributionSnapshotEntry>("effect-claude-code/Transcript/AttributionSnapshotEntry")({
    _tag: Schema.tagDefaultOmit("AttributionSnapshotEntry"),
    type: Schema.tag("attribution-snapshot"),
    messageId: Schema.String,
    ...recordFields
  })
{}

/**
 * The session continued in another session (`continuedInSessionId`), in the background.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ContinuedInEntry extends Schema.Class<ContinuedInEntry>("effect-claude-code/Transcript/ContinuedInEntry")({
  _tag: Schema.tagDefaultOmit("ContinuedInEntry"),
  type: Schema.tag("continued-in"),
  continuedInSessionId: Schema.String,
  ...recordFields
}) {}

/**
 * The model ended the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export class EndedByModelEntry extends Schema.Class<EndedByModelEntry>("effect-claude-code/Transcript/EndedByModelEntry")({
  _tag: Schema.tagDefaultOmit("EndedByModelEntry"),
  type: Schema.tag("ended-by-model"),
  ...recordFields
}) {}

/**
 * The checksum (`sum`) of the transcript's head the CLI vouches for, so a resume may skip reading it.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ResumeHeadVouchEntry extends Schema.Class<ResumeHeadVouchEntry>("effect-claude-code/Transcript/ResumeHeadVouchEntry")({
  _tag: Schema.tagDefaultOmit("ResumeHeadVouchEntry"),
  type: Schema.tag("resume-head-vouch"),
  sum: Schema.String,
  ...recordFields
}) {}

/**
 * A paused API request the CLI resumed (`pausedRequestId` answered as `resumedRequestId`), with the
 * recorded request it refers to; `agentId` names a subagent's.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ApiRequestResumedEntry
  extends Schema.Class<ApiRequestResumedEntry>("effect-claude-code/Transcript/ApiRequestResumedEntry")({
    _tag: Schema.tagDefaultOmit("ApiRequestResumedEntry"),
    type: Schema.tag("api-request-resumed"),
    agentId: optionalString,
    messageId: optionalString,
    pausedRequestId: optionalString,
    resumedRequestId: optionalString,
    requestRef: optionalUnknown,
    requestNotRecorded: optionalUnknown,
    requestHookChanged: optionalUnknown,
    version: optionalString,
    ...recordFields
  })
{}

/**
 * The context a forked subagent (`agentId`) started from: the parent session's first `contextLength`
 * messages, up to `parentLastUuid`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ForkContextRefEntry extends Schema.Class<ForkContextRefEntry>("effect-claude-code/Transcript/ForkContextRefEntry")({
  _tag: Schema.tagDefaultOmit("ForkContextRefEntry"),
  type: Schema.tag("fork-context-ref"),
  agentId: Schema.String,
  parentSessionId: Schema.String,
  parentLastUuid: Schema.String,
  contextLength: Num,
  ...recordFields
}) {}

/**
 * The observer agent (`observerTaskId`, of type `observerAgentType`) that watches the session or the
 * subagent `agentId`; `observerTaskIds` has every observer by type.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ObserverRefEntry extends Schema.Class<ObserverRefEntry>("effect-claude-code/Transcript/ObserverRefEntry")({
  _tag: Schema.tagDefaultOmit("ObserverRefEntry"),
  type: Schema.tag("observer-ref"),
  observerTaskId: Schema.String,
  observerAgentType: Schema.String,
  observerTaskIds: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  agentId: optionalString,
  ...recordFields
}) {}

/**
 * A row a script's tool call (`ranByToolUseId`) wrote for the session; the rest is kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HostRowEntry extends Schema.Class<HostRowEntry>("effect-claude-code/Transcript/HostRowEntry")({
  _tag: Schema.tagDefaultOmit("HostRowEntry"),
  type: Schema.tag("host-row"),
  ranByToolUseId: Schema.String,
  agentId: optionalString,
  ...recordFields
}) {}

/**
 * Where the data the model saw came from, as records (`snapshot`: these replace the earlier ones);
 * `agentId` names a subagent's.
 *
 * @since 0.1.0
 * @category schemas
 */
export class DataFlowRecordsEntry extends Schema.Class<DataFlowRecordsEntry>("effect-claude-code/Transcript/DataFlowRecordsEntry")({
  _tag: Schema.tagDefaultOmit("DataFlowRecordsEntry"),
  type: Schema.tag("data-flow-records"),
  v: Num,
  records: Schema.Array(Schema.Unknown),
  snapshot: optionalBoolean,
  agentId: optionalString,
  ...recordFields
}) {}

/**
 * Why the data flow records are incomplete, as numeric loss codes; `agentId` names a subagent's.
 *
 * @since 0.1.0
 * @category schemas
 */
export class DataFlowIncompleteEntry
  extends Schema.Class<DataFlowIncompleteEntry>("effect-claude-code/Transcript/DataFlowIncompleteEntry")({
    _tag: Schema.tagDefaultOmit("DataFlowIncompleteEntry"),
    type: Schema.tag("data-flow-incomplete"),
    v: Num,
    codes: Schema.Array(Num),
    agentId: optionalString,
    ...recordFields
  })
{}

/**
 * A subagent's `.meta.json` as a session store holds it (the SDK's store entry, last in the subagent's
 * transcript): what started it.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AgentMetadataEntry extends Schema.Class<AgentMetadataEntry>("effect-claude-code/Transcript/AgentMetadataEntry")({
  _tag: Schema.tagDefaultOmit("AgentMetadataEntry"),
  type: Schema.tag("agent_metadata"),
  agentType: optionalString,
  description: optionalString,
  /** The Task (Agent) tool call that started it. */
  toolUseId: optionalString,
  /** 1 for a subagent of the main agent, 2 for one of a subagent, ... */
  spawnDepth: optionalNumber
}) {}

// The bookkeeping entries, in dispatch order: `Transcript.variants` takes them from here.
export const variants = [
  FileHistoryDeltaEntry,
  AttributionSnapshotEntry,
  ContinuedInEntry,
  EndedByModelEntry,
  ResumeHeadVouchEntry,
  ApiRequestResumedEntry,
  ForkContextRefEntry,
  ObserverRefEntry,
  HostRowEntry,
  DataFlowRecordsEntry,
  DataFlowIncompleteEntry,
  AgentMetadataEntry
] as const
