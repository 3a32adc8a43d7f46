/**
 * Where a user turn (or the result answering it) came from: `origin` on
 * `user` and `result` lines. A `kind` this version does not know (the CLI
 * has internal ones: `coordinator`, `observer`...) decodes to
 * {@link UnknownOrigin}, keeping the raw object.
 *
 * Published as types (`effect-claude-code/schema`): an origin narrows by its `_tag`; the schema is the
 * `origin` field of `UserMessage` and the results (`UserMessage.fields.origin`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { optionalNumber, optionalString, rawObject, unknownFallback } from "./internal/fields.ts"

/**
 * Typed at the keyboard. A host wrapping keyboard input stamps it; without
 * an origin a turn counts as unattributed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HumanOrigin extends Schema.Class<HumanOrigin>("effect-claude-code/HumanOrigin")({
  _tag: Schema.tagDefaultOmit("HumanOrigin"),
  kind: Schema.tag("human")
}) {}

/**
 * Delivered by an MCP channel server.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ChannelOrigin extends Schema.Class<ChannelOrigin>("effect-claude-code/ChannelOrigin")({
  _tag: Schema.tagDefaultOmit("ChannelOrigin"),
  kind: Schema.tag("channel"),
  server: Schema.String
}) {}

/**
 * Sent by another session.
 *
 * @since 0.1.0
 * @category schemas
 */
export class PeerOrigin extends Schema.Class<PeerOrigin>("effect-claude-code/PeerOrigin")({
  _tag: Schema.tagDefaultOmit("PeerOrigin"),
  kind: Schema.tag("peer"),
  /** The sender as it asserts itself; rely on `verifiedPeerPid` instead. */
  from: Schema.String,
  /** `bypass` or `prompting`. */
  fromMode: optionalString,
  /** Asserted by the sender, for display and navigation only. */
  name: optionalString,
  /** Asserted by the sender, for display and navigation only. */
  fromSession: optionalString,
  /** The in-process background subagent that sent it. */
  senderTaskId: optionalString,
  /** The message without its peer envelope, as the model sees it. */
  body: optionalString,
  /** The pid of the connecting process, read from the socket. */
  verifiedPeerPid: optionalNumber
}) {}

/**
 * A background task's notice (a scheduled trigger, a message from another
 * session...), injected as a turn by the task `runId` (not in the SDK's types;
 * CLI 2.1.330 writes it on the result of the turn that answers a subagent).
 *
 * @since 0.1.0
 * @category schemas
 */
export class TaskNotificationOrigin
  extends Schema.Class<TaskNotificationOrigin>("effect-claude-code/TaskNotificationOrigin")({
    _tag: Schema.tagDefaultOmit("TaskNotificationOrigin"),
    kind: Schema.tag("task-notification"),
    subkind: optionalString,
    fireReason: optionalString,
    producer: optionalString,
    runId: optionalString,
    taskKind: optionalString
  })
{}

/**
 * An origin whose `kind` this version does not know; `raw` is the object as
 * written and is what encoding gives back.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownOrigin extends Schema.Class<UnknownOrigin>("effect-claude-code/UnknownOrigin")({
  _tag: Schema.tag("UnknownOrigin"),
  raw: rawObject("kind")
}) {
  /**
   * The `kind` this version did not know.
   *
   * @since 0.1.0
   */
  get kind(): string {
    return this.raw.kind
  }
}

/**
 * The provenance of a turn, known kinds first.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Origin = Schema.Union([
  HumanOrigin,
  ChannelOrigin,
  PeerOrigin,
  TaskNotificationOrigin,
  unknownFallback(
    UnknownOrigin,
    ["human", "channel", "peer", "task-notification"],
    (raw) => new UnknownOrigin({ raw }),
    (origin) => origin.raw,
    "kind"
  )
])

/**
 * The provenance of a turn.
 *
 * @since 0.1.0
 * @category models
 */
export type Origin = typeof Origin.Type
