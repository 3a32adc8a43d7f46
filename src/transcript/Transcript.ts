/**
 * Every entry the CLI writes to a session transcript
 * (`~/.claude/projects/<project key>/<session id>.jsonl`, and subagent
 * transcripts under `<session id>/subagents/`), as one tagged union with a
 * fast synchronous decoder.
 *
 * Conversation entries (`user`, `assistant`, `system`, `attachment`,
 * `progress`) link the conversation by `parentUuid`, the messages with the
 * same Messages API payload as stream-json; the others are session
 * metadata. An unknown `type` decodes to {@link UnknownEntry}; a known one
 * with broken fields is a {@link TranscriptEntryError}; unknown extra fields
 * are ignored.
 *
 * The metadata, session state and bookkeeping entries (`SummaryEntry`,
 * `CustomTitleEntry`, `ModeEntry`, `AtisLatchEntry`, ...) are exported as
 * types: match them by `_tag`. Their schemas are in {@link variants} (each
 * class with its `_tag`), for `Schema.is`.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaIssue from "effect/SchemaIssue"
import type * as SessionEvent from "../schema/SessionEvent.ts"
import { AssistantApiMessage, UserApiMessage } from "../schema/ApiMessage.ts"
import * as ContentBlock from "../schema/ContentBlock.ts"
import * as FastDecode from "../schema/internal/fastDecode.ts"
import {
  open,
  optionalBoolean,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalUnknown,
  rawObject
} from "../schema/internal/fields.ts"
import * as ToolUseResult from "../schema/ToolUseResult.ts"
import * as Metadata from "./internal/metadata.ts"
import * as Records from "./internal/records.ts"
import * as State from "./internal/state.ts"

/**
 * The fields every conversation entry carries. Older CLIs leave some out
 * (1.0.x has no `gitBranch`, summaries carried over by `--continue` keep the
 * earlier `sessionId`), so only `uuid` is required.
 */
const envelope = {
  uuid: Schema.String,
  parentUuid: optionalNullableString,
  /** Where a compaction boundary continues the conversation from. */
  logicalParentUuid: optionalNullableString,
  isSidechain: optionalBoolean,
  sessionId: optionalString,
  cwd: optionalString,
  version: optionalString,
  gitBranch: optionalString,
  timestamp: optionalString,
  userType: optionalString,
  entrypoint: optionalString,
  slug: optionalString,
  /** Set on the entries of a subagent transcript. */
  agentId: optionalString,
  isMeta: optionalBoolean
} as const

/**
 * A user turn: a prompt, or the tool results of the previous turn
 * (`toolUseResult` keeps the CLI's structured tool output as written).
 *
 * @since 0.1.0
 * @category schemas
 */
export class UserEntry extends Schema.Class<UserEntry>("effect-claude-code/Transcript/UserEntry")({
  _tag: Schema.tagDefaultOmit("UserEntry"),
  type: Schema.tag("user"),
  message: UserApiMessage,
  toolUseResult: optionalUnknown,
  sourceToolAssistantUUID: optionalString,
  promptId: optionalString,
  permissionMode: optionalString,
  isCompactSummary: optionalBoolean,
  isVisibleInTranscriptOnly: optionalBoolean,
  ...envelope
}) {
  /**
   * The text of the turn (a plain prompt, or its text blocks).
   *
   * @since 0.1.0
   */
  get text(): string {
    return ContentBlock.text(this.message.content)
  }

  /**
   * The tool results the turn carries.
   *
   * @since 0.1.0
   */
  get toolResults(): ReadonlyArray<ContentBlock.ToolResultBlock> {
    return ContentBlock.filterTag(this.message.content, "ToolResultBlock")
  }

  /**
   * The CLI's structured tool output told apart by shape; `undefined` when absent.
   *
   * @since 0.1.0
   */
  get toolUseResultClassified(): ToolUseResult.Classified | undefined {
    return this.toolUseResult === undefined ? undefined : ToolUseResult.classify(this.toolUseResult)
  }
}

/**
 * A model response, or one content block of it: CLI 2.x writes one entry
 * per content block, each with the whole response's `message.id`, `usage`
 * and `requestId`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AssistantEntry extends Schema.Class<AssistantEntry>("effect-claude-code/Transcript/AssistantEntry")({
  _tag: Schema.tagDefaultOmit("AssistantEntry"),
  type: Schema.tag("assistant"),
  message: AssistantApiMessage,
  requestId: optionalString,
  /** Present on the CLI's synthetic error turns. */
  isApiErrorMessage: optionalBoolean,
  error: optionalUnknown,
  apiErrorStatus: optionalNumber,
  apiErrorType: optionalString,
  /** Which block of the response this entry holds (CLI 2.1). */
  apiBlockIndex: optionalNumber,
  requestedModel: optionalString,
  ...envelope
}) {
  /**
   * The text blocks, joined by newlines.
   *
   * @since 0.1.0
   */
  get text(): string {
    return ContentBlock.text(this.message.content)
  }

  /**
   * The tool calls of the entry.
   *
   * @since 0.1.0
   */
  get toolUses(): ReadonlyArray<ContentBlock.ToolUseBlock> {
    return ContentBlock.filterTag(this.message.content, "ToolUseBlock")
  }
}

const systemFields = {
  type: Schema.tag("system"),
  content: optionalString,
  level: optionalString,
  ...envelope
} as const

/**
 * Where a compaction cut the conversation: `parentUuid` is `null`,
 * `logicalParentUuid` the last entry before the cut.
 *
 * @since 0.1.0
 * @category schemas
 */
export class CompactBoundaryEntry
  extends Schema.Class<CompactBoundaryEntry>("effect-claude-code/Transcript/CompactBoundaryEntry")({
    _tag: Schema.tagDefaultOmit("CompactBoundaryEntry"),
    subtype: Schema.tag("compact_boundary"),
    compactMetadata: Schema.optionalKey(open({ trigger: optionalString, preTokens: optionalNumber })),
    ...systemFields
  })
{}

/**
 * A failed API request the CLI retries.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ApiErrorEntry extends Schema.Class<ApiErrorEntry>("effect-claude-code/Transcript/ApiErrorEntry")({
  _tag: Schema.tagDefaultOmit("ApiErrorEntry"),
  subtype: Schema.tag("api_error"),
  error: optionalUnknown,
  cause: optionalUnknown,
  retryInMs: optionalNumber,
  retryAttempt: optionalNumber,
  maxRetries: optionalNumber,
  source: optionalString,
  ...systemFields
}) {}

/**
 * A system note of the interactive CLI: a local command's output
 * (`local_command`), a notice (`informational`), a turn's duration
 * (`turn_duration`), the stop hooks' summary (`stop_hook_summary`), a
 * micro-compaction (`microcompact_boundary`), a model fallback
 * (`model_fallback`, `model_refusal_fallback`, ...), a scheduled task firing,
 * memories saved, agents killed, a remote-control or cloud session's status,
 * ...; only the shared fields are typed, the rest is kept in `raw` by the
 * transcript decoder's record. CLI 1.0.x wrote its notes (a model fallback
 * warning, ...) with no `subtype`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemNoteEntry extends Schema.Class<SystemNoteEntry>("effect-claude-code/Transcript/SystemNoteEntry")({
  _tag: Schema.tagDefaultOmit("SystemNoteEntry"),
  subtype: Schema.optionalKey(Schema.Literals([
    "local_command",
    "informational",
    "turn_duration",
    "stop_hook_summary",
    "microcompact_boundary",
    "away_summary",
    "model_fallback",
    "model_refusal_fallback",
    "model_refusal_no_fallback",
    "model_consent_fallback",
    "permission_retry",
    "bridge_status",
    "cloud_session_status",
    "scheduled_task_fire",
    "memory_saved",
    "agents_killed",
    "file_snapshot",
    "rewind_stand_in"
  ])),
  durationMs: optionalNumber,
  ...systemFields
}) {}

/**
 * Context the CLI added to the conversation (environment, date, file
 * changes, hook output, skill and agent listings, ...); `attachment.type`
 * says which, the rest is kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AttachmentEntry extends Schema.Class<AttachmentEntry>("effect-claude-code/Transcript/AttachmentEntry")({
  _tag: Schema.tagDefaultOmit("AttachmentEntry"),
  type: Schema.tag("attachment"),
  attachment: rawObject("type"),
  rendered: optionalUnknown,
  renderedRole: optionalString,
  ...envelope
}) {}

/**
 * A tool's or hook's progress while it runs (`data.type`: `bash_progress`, `hook_progress`,
 * `agent_progress`, ...); it links the conversation like a message.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ProgressEntry extends Schema.Class<ProgressEntry>("effect-claude-code/Transcript/ProgressEntry")({
  _tag: Schema.tagDefaultOmit("ProgressEntry"),
  type: Schema.tag("progress"),
  data: rawObject("type"),
  toolUseID: optionalString,
  parentToolUseID: optionalString,
  ...envelope
}) {}



// The entries users match by `_tag` and never construct: types here, their schemas in `variants`.
/** @since 0.1.0 */
export type * from "./internal/metadata.ts"
/** @since 0.1.0 */
export type * from "./internal/state.ts"
/** @since 0.1.0 */
export type * from "./internal/records.ts"

/**
 * An entry whose `type` (or system `subtype`) this version does not know.
 * `raw` is the object as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownEntry extends Schema.Class<UnknownEntry>("effect-claude-code/Transcript/UnknownEntry")({
  _tag: Schema.tag("UnknownEntry"),
  raw: rawObject("type")
}) {
  /**
   * The `type` this version did not know.
   *
   * @since 0.1.0
   */
  get type(): string {
    return this.raw.type
  }

  /**
   * The `uuid`, when the entry has a string one.
   *
   * @since 0.1.0
   */
  get uuid(): string | undefined {
    return typeof this.raw.uuid === "string" ? this.raw.uuid : undefined
  }
}

/**
 * Every known entry type, in dispatch order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const variants = [
  UserEntry,
  AssistantEntry,
  CompactBoundaryEntry,
  ApiErrorEntry,
  SystemNoteEntry,
  AttachmentEntry,
  ...Metadata.variants,
  ProgressEntry,
  ...State.variants,
  ...Records.variants
] as const

/**
 * Any entry of a transcript.
 *
 * @since 0.1.0
 * @category models
 */
export type Entry = InstanceType<typeof variants[number]> | UnknownEntry

/**
 * A conversation message: what `getSessionMessages` returns.
 *
 * @since 0.1.0
 * @category models
 */
export type MessageEntry = UserEntry | AssistantEntry

/**
 * A system entry of a known subtype.
 *
 * @since 0.1.0
 * @category models
 */
export type SystemEntry = CompactBoundaryEntry | ApiErrorEntry | SystemNoteEntry

/**
 * The `type` is not an object, has no string `type`, or is a system entry without a string `subtype`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class NotAnEntry extends Schema.TaggedError<NotAnEntry>()("NotAnEntry", {
  detail: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Not a transcript entry: ${this.detail}`
  }
}

/**
 * A known entry type whose fields do not fit its schema; `issue` has the path to the offending field.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidFields extends Schema.TaggedError<InvalidFields>()("InvalidFields", {
  entryType: Schema.String,
  subtype: Schema.optional(Schema.String),
  detail: Schema.String,
  issue: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const kind = this.subtype === undefined ? this.entryType : `${this.entryType}/${this.subtype}`
    return `Invalid "${kind}" transcript entry: ${this.detail}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([NotAnEntry, InvalidFields])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * A JSON value that is not a valid transcript entry.
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptEntryError extends Schema.TaggedError<TranscriptEntryError>()("TranscriptEntryError", {
  reason: Reason
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

type Decoder = (input: unknown) => Result.Result<Entry, Schema.SchemaError>

const byType = new Map<string, Decoder>()
const systemBySubtype = new Map<string, Decoder>()

const literals = (schema: Schema.Top): ReadonlyArray<string> => {
  const ast = schema.ast
  if (ast._tag === "Literal" && typeof ast.literal === "string") return [ast.literal]
  if (ast._tag === "Union") return ast.types.flatMap((t) => literals(Schema.make(t)))
  return []
}

for (const variant of variants) {
  const decode = FastDecode.decodeUnknownResult(variant) as Decoder
  const fields = variant.fields as Record<string, Schema.Top>
  const [type] = literals(fields.type)
  if (type === "system") for (const subtype of literals(fields.subtype)) systemBySubtype.set(subtype, decode)
  else byType.set(type, decode)
}

// A system entry without a subtype (CLI 1.0.x) is a note.
const systemNote = FastDecode.decodeUnknownResult(SystemNoteEntry) as Decoder

/**
 * Whether `type` (and, for `system`, `subtype`) name a known entry.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownType = (type: string, subtype?: string): boolean =>
  type === "system" ? subtype === undefined || systemBySubtype.has(subtype) : byType.has(type)

const describe = (input: unknown): string =>
  input === null ? "null" : Array.isArray(input) ? "an array" : typeof input

const notAnEntry = (detail: string) => Result.fail(new TranscriptEntryError({ reason: new NotAnEntry({ detail }) }))

/**
 * Decodes one parsed JSON line of a transcript. Synchronous and
 * allocation-light.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeEntry = (input: unknown): Result.Result<Entry, TranscriptEntryError> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return notAnEntry(`expected a JSON object, got ${describe(input)}`)
  }
  const raw = input as { readonly [k: string]: unknown }
  const type = raw.type
  if (typeof type !== "string") return notAnEntry(`expected a string "type" field, got ${describe(type)}`)
  let subtype: string | undefined
  let decode: Decoder | undefined
  if (type === "system") {
    if (raw.subtype === undefined) {
      decode = systemNote
    } else if (typeof raw.subtype !== "string") {
      return notAnEntry(`expected a string "subtype" on a system entry, got ${describe(raw.subtype)}`)
    } else {
      subtype = raw.subtype
      decode = systemBySubtype.get(subtype)
    }
  } else {
    decode = byType.get(type)
  }
  if (decode === undefined) return Result.succeed(new UnknownEntry({ raw: raw as UnknownEntry["raw"] }))
  const result = decode(input)
  if (Result.isSuccess(result)) return result as Result.Result<Entry, never>
  return Result.fail(
    new TranscriptEntryError({
      reason: new InvalidFields({
        entryType: type,
        subtype,
        detail: result.failure.message,
        issue: result.failure.issue as SchemaIssue.Issue
      })
    })
  )
}

/**
 * Whether an entry is a conversation message (user or assistant).
 *
 * @since 0.1.0
 * @category guards
 */
export const isMessage = (entry: Entry): entry is MessageEntry =>
  entry._tag === "UserEntry" || entry._tag === "AssistantEntry"

/**
 * Whether an entry is a known system entry.
 *
 * @since 0.1.0
 * @category guards
 */
export const isSystem = (entry: Entry): entry is SystemEntry =>
  entry._tag === "CompactBoundaryEntry" || entry._tag === "ApiErrorEntry" || entry._tag === "SystemNoteEntry"

/**
 * An entry of the conversation graph (it has a `uuid` and a `parentUuid`).
 *
 * @since 0.1.0
 * @category models
 */
export type ConversationEntry = MessageEntry | SystemEntry | AttachmentEntry | ProgressEntry

/**
 * Whether an entry is part of the conversation graph.
 *
 * @since 0.1.0
 * @category guards
 */
export const isConversation = (entry: Entry): entry is ConversationEntry =>
  isMessage(entry) || isSystem(entry) || entry._tag === "AttachmentEntry" || entry._tag === "ProgressEntry"

/**
 * The entries of a `transcript_mirror` frame decoded as transcript entries, each in its place. Decoded here,
 * not in the frame's schema: a transcript entry of a newer CLI that does not fit must not fail the frame that
 * carries it to the store.
 *
 * @since 0.1.0
 * @category decoding
 */
export const mirroredEntries = (frame: SessionEvent.TranscriptMirror): ReadonlyArray<Entry | TranscriptEntryError> =>
  frame.entries.map((entry) => Result.merge(decodeEntry(entry)))
