/**
 * The session metadata entries of a transcript: summaries and titles, tags, file history snapshots, the
 * prompt queue, the last prompt, where a session was derived from, cost and tool bookkeeping, and the API
 * request records the CLI keeps on the machine.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import {
  JsonObject,
  Num,
  open,
  optionalBoolean,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalUnknown
} from "../../schema/internal/fields.ts"

/**
 * A summary of the conversation up to `leafUuid` (older CLIs' session title).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SummaryEntry extends Schema.Class<SummaryEntry>("effect-claude-code/Transcript/SummaryEntry")({
  _tag: Schema.tagDefaultOmit("SummaryEntry"),
  type: Schema.tag("summary"),
  summary: Schema.String,
  leafUuid: optionalNullableString
}) {}

/**
 * The backups of edited files taken before the message `messageId` (for rewinding).
 *
 * @since 0.1.0
 * @category schemas
 */
export class FileHistorySnapshotEntry
  extends Schema.Class<FileHistorySnapshotEntry>("effect-claude-code/Transcript/FileHistorySnapshotEntry")({
    _tag: Schema.tagDefaultOmit("FileHistorySnapshotEntry"),
    type: Schema.tag("file-history-snapshot"),
    messageId: Schema.String,
    snapshot: open({ trackedFileBackups: Schema.optionalKey(JsonObject), timestamp: optionalString }),
    isSnapshotUpdate: optionalBoolean
  })
{}

/**
 * A change to the queue of prompts waiting for the model (`enqueue`, `dequeue`, `remove`, `popAll`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class QueueOperationEntry
  extends Schema.Class<QueueOperationEntry>("effect-claude-code/Transcript/QueueOperationEntry")({
    _tag: Schema.tagDefaultOmit("QueueOperationEntry"),
    type: Schema.tag("queue-operation"),
    operation: Schema.String,
    timestamp: optionalString,
    sessionId: optionalString,
    content: optionalUnknown
  })
{}

/**
 * The session's last prompt and the leaf of its conversation. The CLI leaves `lastPrompt` out when the
 * session has none yet (a `/context` or another local command first), and sets `explicit` when it moved
 * the leaf itself (a rewind, a branch).
 *
 * @since 0.1.0
 * @category schemas
 */
export class LastPromptEntry extends Schema.Class<LastPromptEntry>("effect-claude-code/Transcript/LastPromptEntry")({
  _tag: Schema.tagDefaultOmit("LastPromptEntry"),
  type: Schema.tag("last-prompt"),
  lastPrompt: optionalString,
  leafUuid: optionalNullableString,
  explicit: optionalBoolean,
  sessionId: optionalString
}) {}

const titleFields = { sessionId: optionalString, uuid: optionalString, timestamp: optionalString } as const

/**
 * A title set by the user (`/rename`, or a fork's title).
 *
 * @since 0.1.0
 * @category schemas
 */
export class CustomTitleEntry extends Schema.Class<CustomTitleEntry>("effect-claude-code/Transcript/CustomTitleEntry")({
  _tag: Schema.tagDefaultOmit("CustomTitleEntry"),
  type: Schema.tag("custom-title"),
  customTitle: Schema.String,
  ...titleFields
}) {}

/**
 * A title the model generated.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AiTitleEntry extends Schema.Class<AiTitleEntry>("effect-claude-code/Transcript/AiTitleEntry")({
  _tag: Schema.tagDefaultOmit("AiTitleEntry"),
  type: Schema.tag("ai-title"),
  aiTitle: Schema.String,
  ...titleFields
}) {}

/**
 * A tag set by the user.
 *
 * @since 0.1.0
 * @category schemas
 */
export class TagEntry extends Schema.Class<TagEntry>("effect-claude-code/Transcript/TagEntry")({
  _tag: Schema.tagDefaultOmit("TagEntry"),
  type: Schema.tag("tag"),
  tag: Schema.String,
  ...titleFields
}) {}

/**
 * The sessions a fork was made from.
 *
 * @since 0.1.0
 * @category schemas
 */
export class DerivedFromEntry extends Schema.Class<DerivedFromEntry>("effect-claude-code/Transcript/DerivedFromEntry")({
  _tag: Schema.tagDefaultOmit("DerivedFromEntry"),
  type: Schema.tag("derived-from"),
  v: optionalNumber,
  sessionId: optionalString,
  sessions: Schema.optionalKey(Schema.Array(Schema.Unknown))
}) {}

/**
 * The running cost of the session, per model (`modelUsage` as in a result's `modelUsage`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class CostStateEntry extends Schema.Class<CostStateEntry>("effect-claude-code/Transcript/CostStateEntry")({
  _tag: Schema.tagDefaultOmit("CostStateEntry"),
  type: Schema.tag("cost-state"),
  sessionId: optionalString,
  totalCostUSD: Num,
  totalAPIDuration: optionalNumber,
  totalDuration: optionalNumber,
  modelUsage: Schema.optionalKey(Schema.Record(Schema.String, JsonObject)),
  hasUnknownModelCost: optionalBoolean
}) {}

/**
 * The tools the model has called in the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolsUsedEntry extends Schema.Class<ToolsUsedEntry>("effect-claude-code/Transcript/ToolsUsedEntry")({
  _tag: Schema.tagDefaultOmit("ToolsUsedEntry"),
  type: Schema.tag("tools-used"),
  tools: Schema.Array(Schema.String),
  sessionId: optionalString
}) {}

/**
 * An internal latch the CLI keeps across resumes.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AtisLatchEntry extends Schema.Class<AtisLatchEntry>("effect-claude-code/Transcript/AtisLatchEntry")({
  _tag: Schema.tagDefaultOmit("AtisLatchEntry"),
  type: Schema.tag("atis-latch"),
  atis: Schema.String,
  sessionId: optionalString
}) {}

const requestFields = { sessionId: optionalString, timestamp: optionalString, version: optionalString } as const

/**
 * The fixed part of the API requests (system prompt, tools), kept once per `shapeHash`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ApiRequestShapeEntry
  extends Schema.Class<ApiRequestShapeEntry>("effect-claude-code/Transcript/ApiRequestShapeEntry")({
    _tag: Schema.tagDefaultOmit("ApiRequestShapeEntry"),
    type: Schema.tag("api-request-shape"),
    shapeHash: Schema.String,
    shape: optionalUnknown,
    ...requestFields
  })
{}

/**
 * One request message kept once by its `hash`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ApiRequestBlobEntry
  extends Schema.Class<ApiRequestBlobEntry>("effect-claude-code/Transcript/ApiRequestBlobEntry")({
    _tag: Schema.tagDefaultOmit("ApiRequestBlobEntry"),
    type: Schema.tag("api-request-blob"),
    hash: Schema.String,
    message: optionalUnknown,
    sessionId: optionalString
  })
{}

/**
 * One API request, as its parameters, shape and the hashes of its messages.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ApiRequestEntry extends Schema.Class<ApiRequestEntry>("effect-claude-code/Transcript/ApiRequestEntry")({
  _tag: Schema.tagDefaultOmit("ApiRequestEntry"),
  type: Schema.tag("api-request"),
  id: Schema.String,
  querySource: optionalString,
  shapeHash: optionalString,
  params: optionalUnknown,
  base: optionalString,
  keep: optionalNumber,
  tail: Schema.optionalKey(Schema.Array(Schema.String)),
  ...requestFields
}) {}

// The metadata entries, in dispatch order: `Transcript.variants` takes them from here.
export const variants = [
  SummaryEntry,
  FileHistorySnapshotEntry,
  QueueOperationEntry,
  LastPromptEntry,
  CustomTitleEntry,
  AiTitleEntry,
  TagEntry,
  DerivedFromEntry,
  CostStateEntry,
  ToolsUsedEntry,
  AtisLatchEntry,
  ApiRequestShapeEntry,
  ApiRequestBlobEntry,
  ApiRequestEntry
] as const
