/**
 * A session's errors with the secrets `redact` knows removed from the text the CLI wrote into them: the error
 * it answered a control request with, what does not fit in its answer, its stderr tail. A session applies it
 * to every error it gives, with the secrets of its environment and options.
 *
 * @internal
 */
import * as Redaction from "../../internal/redaction.ts"
import * as SessionError from "../SessionError.ts"

// The reason itself when redaction changes nothing.
const redactReason = (reason: SessionError.Reason, redact: Redaction.Redact): SessionError.Reason => {
  switch (reason._tag) {
    case "ControlRequestFailed": {
      const error = redact(reason.error)
      return error === reason.error ? reason : new SessionError.ControlRequestFailed({ subtype: reason.subtype, error })
    }
    case "InvalidResponse": {
      const detail = redact(reason.detail)
      return detail === reason.detail ? reason : new SessionError.InvalidResponse({ subtype: reason.subtype, detail })
    }
    case "SessionClosed": {
      const stderrTail = reason.stderrTail === undefined ? undefined : Redaction.redactTail(reason.stderrTail, redact)
      return stderrTail === reason.stderrTail ? reason : new SessionError.SessionClosed({ ...reason, stderrTail })
    }
    case "CallbackFailed": {
      const detail = redact(reason.detail)
      return detail === reason.detail ? reason : new SessionError.CallbackFailed({ callback: reason.callback, detail })
    }
    case "ControlTimeout":
    case "InterruptTimeout":
    case "InvalidOptions":
    case "Unserializable":
      return reason
  }
}

/** The error itself when redaction changes nothing. */
export const redact = (self: SessionError.SessionError, redact: Redaction.Redact): SessionError.SessionError => {
  const reason = redactReason(self.reason, redact)
  return reason === self.reason ? self : SessionError.make(reason)
}
