/**
 * The one error the {@link SessionFiles} functions fail with; the `reason` says what went wrong.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * No transcript of that session (or subagent) was found.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String,
  agentId: Schema.optional(Schema.String),
  /** Where it was looked for. */
  searched: Schema.Array(Schema.String)
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const what = this.agentId === undefined ? `Session ${this.sessionId}` : `Subagent ${this.agentId} of session ${this.sessionId}`
    const shown = this.searched.slice(0, 3).join(", ")
    const where = this.searched.length === 0
      ? "no project directory"
      : this.searched.length <= 3
      ? shown
      : `${this.searched.length} directories: ${shown}, …`
    return `${what} not found (looked in ${where})`
  }
}

/**
 * A session looked for in every project is in more than one (`projects`, their directories): give the
 * `dir` of the one meant.
 *
 * @since 0.1.0
 * @category reasons
 */
export class AmbiguousSession extends Schema.TaggedError<AmbiguousSession>()("AmbiguousSession", {
  sessionId: Schema.String,
  projects: Schema.Array(Schema.String)
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Session ${this.sessionId} is in ${this.projects.length} projects (${this.projects.join(", ")}): give the dir of the one meant`
  }
}

/**
 * A title or a tag given to a session is blank (a tag is cleared with `null`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class BlankText extends Schema.TaggedError<BlankText>()("BlankText", {
  sessionId: Schema.String,
  field: Schema.Literals(["title", "tag"])
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.field === "title"
      ? `A title for session ${this.sessionId} cannot be blank`
      : `A tag for session ${this.sessionId} cannot be blank (null clears the tag)`
  }
}

/**
 * The session id is not a UUID (it names a file: anything else could point outside the projects directory).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidSessionId extends Schema.TaggedError<InvalidSessionId>()("InvalidSessionId", {
  sessionId: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Invalid session id ${JSON.stringify(this.sessionId)}: expected a UUID`
  }
}

/**
 * A fork's `upToMessageId` is not a message of the session.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MessageNotFound extends Schema.TaggedError<MessageNotFound>()("MessageNotFound", {
  sessionId: Schema.String,
  uuid: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Message ${this.uuid} not found in session ${this.sessionId}`
  }
}

/**
 * A transcript line could not be decoded (`error` names the line and what was wrong).
 *
 * @since 0.1.0
 * @category reasons
 */
export class BadTranscript extends Schema.TaggedError<BadTranscript>()("BadTranscript", {
  path: Schema.String,
  error: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.path}: ${this.error instanceof Error ? this.error.message : String(this.error)}`
  }
}

/**
 * Reading, writing or removing a file failed.
 *
 * @since 0.1.0
 * @category reasons
 */
export class FileSystemFailed extends Schema.TaggedError<FileSystemFailed>()("FileSystemFailed", {
  path: Schema.String,
  cause: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.path}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([
  SessionNotFound,
  AmbiguousSession,
  InvalidSessionId,
  BlankText,
  MessageNotFound,
  BadTranscript,
  FileSystemFailed
])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * @since 0.1.0
 * @category errors
 */
export class SessionFilesError extends Schema.TaggedError<SessionFilesError>()("SessionFilesError", {
  reason: Reason
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}
