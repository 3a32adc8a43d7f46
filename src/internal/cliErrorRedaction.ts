/**
 * Redaction of a `ClaudeCliError`: every text it carries and its cause, so that no secret of the run's
 * environment or options leaves the library in an error.
 */
import { dual } from "effect/Function"
import {
  type ClaudeCliError,
  DecodeFailed,
  ErrorResultExit,
  ExecutableNotFound,
  FixtureUnreadable,
  IdleTimeout,
  InvalidOptions,
  LineTooLong,
  make,
  MissingResult,
  ProcessExited,
  type Reason,
  RecordingFailed,
  SpawnFailed
} from "../ClaudeCliError.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
import { redactCutAtEnd, redactDecodeError, redactRaw, withFields } from "../stream/internal/cut.ts"
import * as SessionStore from "../store/StoreContract.ts"
import * as Redaction from "./redaction.ts"

// A copy of an error, array or plain object with every string redacted; other values are kept.
const redactDeep = (value: unknown, redact: Redaction.Redact, copies: Map<object, unknown>): unknown => {
  if (typeof value === "string") return redact(value)
  if (typeof value !== "object" || value === null) return value
  if (copies.has(value)) return copies.get(value)
  const proto = Object.getPrototypeOf(value)
  if (!(value instanceof Error || Array.isArray(value) || proto === Object.prototype || proto === null)) return value
  const copy = Array.isArray(value) ? [] : Object.create(proto)
  copies.set(value, copy)
  for (const key of Reflect.ownKeys(value)) {
    const property = Object.getOwnPropertyDescriptor(value, key)!
    if ("value" in property) property.value = redactDeep(property.value, redact, copies)
    Object.defineProperty(copy, key, property)
  }
  return copy
}

// Whether redaction changes any string reachable from `value` (its message, stack, fields and causes).
const holdsSecret = (value: unknown, redact: Redaction.Redact, seen: Set<unknown> = new Set()): boolean => {
  if (typeof value === "string") return redact(value) !== value
  if (typeof value !== "object" || value === null || seen.has(value)) return false
  seen.add(value)
  return Reflect.ownKeys(value).some((key) => {
    const property = Object.getOwnPropertyDescriptor(value, key)!
    return "value" in property && holdsSecret(property.value, redact, seen)
  })
}

// A cause is kept as it is unless it holds a secret; a stream-layer DecodeError keeps its type, its raw
// cut redacted as a cut.
const redactCause = (cause: unknown, redact: Redaction.Redact): unknown => {
  if (!holdsSecret(cause, redact)) return cause
  if (isDecodeError(cause)) {
    // Its own cause goes, even when the secret is there and not in its raw cut or detail.
    const redacted = redactDecodeError(cause, redact)
    return redacted === cause ? withFields(cause, { cause: undefined }) : redacted
  }
  return redactDeep(cause, redact, new Map())
}

// What a kill or an exit cut: its end is a cut edge.
const redactCut = (text: unknown, redact: Redaction.Redact): unknown =>
  typeof text === "string" ? redactCutAtEnd(text, redact) : redactCause(text, redact)

// The cause field of a copy: absent when there is none.
const causeOf = (cause: unknown): { readonly cause?: unknown } => cause === undefined ? {} : { cause }

const redactReason = (reason: Reason, redact: Redaction.Redact): Reason => {
  switch (reason._tag) {
    case "ExecutableNotFound":
      return new ExecutableNotFound({ executable: redact(reason.executable) })
    case "SpawnFailed":
      return new SpawnFailed({
        executable: redact(reason.executable),
        description: redact(reason.description),
        ...causeOf(redactCause(reason.cause, redact))
      })
    case "FixtureUnreadable":
    case "RecordingFailed": {
      const fields = {
        path: redact(reason.path),
        description: redact(reason.description),
        ...causeOf(redactCause(reason.cause, redact))
      }
      return reason._tag === "FixtureUnreadable" ? new FixtureUnreadable(fields) : new RecordingFailed(fields)
    }
    // A spread copies the fields, not the cause (an Error's own, not enumerable).
    case "ProcessExited":
      return new ProcessExited({
        ...reason,
        stderrTail: Redaction.redactTail(reason.stderrTail, redact),
        ...causeOf(redactCut(reason.cause, redact))
      })
    case "DecodeFailed":
      return new DecodeFailed({
        ...reason,
        raw: redactRaw(reason.raw, redact),
        issue: redact(reason.issue),
        ...causeOf(redactCause(reason.cause, redact))
      })
    case "LineTooLong":
      return new LineTooLong({ ...reason, raw: redactRaw(reason.raw, redact), ...causeOf(redactCause(reason.cause, redact)) })
    // The result is a message of the stream already: its reader saw it as it is.
    case "ErrorResultExit":
      return new ErrorResultExit({ ...reason, stderrTail: Redaction.redactTail(reason.stderrTail, redact) })
    case "MissingResult":
      return new MissingResult({ ...reason, stderrTail: Redaction.redactTail(reason.stderrTail, redact) })
    case "IdleTimeout":
      return new IdleTimeout({ ...reason, stderrTail: Redaction.redactTail(reason.stderrTail, redact) })
    // Numbers and a setting's name: nothing a secret can be in.
    case "NoCliSlot":
    case "SessionUnavailable":
      return reason
    case "InvalidOptions":
      return new InvalidOptions({ description: redact(reason.description) })
    case "SessionStoreError": {
      const inner = redactStoreReason(reason.reason, redact)
      return sameAs(inner, reason.reason) ? reason : new SessionStore.SessionStoreError({ reason: inner })
    }
  }
}

// A store's reason with its texts (keys, paths, details) and its cause redacted.
const redactStoreReason = (reason: SessionStore.Reason, redact: Redaction.Redact): SessionStore.Reason => {
  const fields: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(reason)) fields[name] = typeof value === "string" ? redact(value) : value
  if ("cause" in reason) Object.assign(fields, causeOf(redactCause(reason.cause, redact)))
  return new (reason.constructor as new(fields: unknown) => SessionStore.Reason)(fields)
}

// Whether a redacted copy of a reason says the same as the reason (nothing was redacted).
const sameAs = (copy: Reason | SessionStore.Reason, reason: Reason | SessionStore.Reason): boolean => {
  const [a, b] = [copy as unknown as Record<string, unknown>, reason as unknown as Record<string, unknown>]
  return a.cause === b.cause && Object.keys(a).every((key) => a[key] === b[key])
}

/**
 * The error with the secrets `redact` knows removed from every text it carries: paths, descriptions, raw
 * cuts (redacted as cuts), stderr tails, and its cause, which is kept as it is unless it holds a secret
 * (then every string of a copy of it is redacted: the arguments of a failed spawn, for example). Runs apply
 * it where their errors leave them, so that no error shows a secret of the run's environment or options.
 */
export const redact: {
  (redact: Redaction.Redact): (self: ClaudeCliError) => ClaudeCliError
  (self: ClaudeCliError, redact: Redaction.Redact): ClaudeCliError
} = dual(2, (self: ClaudeCliError, redact: Redaction.Redact): ClaudeCliError => {
  const reason = redactReason(self.reason, redact)
  return sameAs(reason, self.reason) ? self : make(reason)
})
