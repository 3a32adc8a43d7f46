/**
 * Where each line the CLI writes goes: control frames to the protocol, keep-alives nowhere, messages to the
 * turn tracking and then, as items, to the readers. A line that does not decode fails the output (a control
 * request among them is answered with an error first, so that the CLI never waits on it).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as DecodeErrors from "../../stream/DecodeError.ts"
import { fromDecodeError } from "../../internal/badLine.ts"
import type * as CliError from "../../ClaudeCliError.ts"
import type * as Redaction from "../../internal/redaction.ts"
import * as Decode from "../../stream/Decode.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import * as Protocol from "../Protocol.ts"
import type { Message } from "./message.ts"
import type * as Turns from "./turns.ts"

/** A message of the output, with its turn and whether readers see it. */
export interface Item extends Turns.Seen {
  readonly message: Message
  readonly visible: boolean
}

// A control request that does not decode still gets an answer, so that the CLI never waits on it.
const rejectUnreadable = (
  protocol: Protocol.Protocol,
  line: Ndjson.Line,
  error: Decode.DecodeError
): Effect.Effect<void> | undefined => {
  try {
    const json = JSON.parse(line.text)
    return json?.type === "control_request" && typeof json.request_id === "string"
      ? protocol.reject(json.request_id, `invalid control request: ${error.detail}`)
      : undefined
  } catch {
    return undefined
  }
}

export const make = (options: {
  readonly protocol: Protocol.Protocol
  readonly turns: Turns.Turns
  /** Whether readers see the replays of the session's own messages (the caller asked for them). */
  readonly showReplays: boolean
  readonly redact: Redaction.Redact
  /** Called with every message before it is tracked (`system/init` carries the session id). */
  readonly onMessage: (message: Message) => Effect.Effect<void>
  readonly publish: (item: Item) => Effect.Effect<void>
}) =>
(line: Ndjson.Line | Decode.DecodeError): Effect.Effect<void, CliError.ClaudeCliError> => {
  if (DecodeErrors.isDecodeError(line)) return Effect.fail(fromDecodeError(line, options.redact))
  const message = Decode.decodeLineMessage(line)
  if (DecodeErrors.isDecodeError(message)) {
    return rejectUnreadable(options.protocol, line, message) ?? Effect.fail(fromDecodeError(message, options.redact))
  }
  if (Protocol.isControlFrame(message)) return options.protocol.receive(message)
  if (message._tag === "KeepAlive") return Effect.void
  return options.onMessage(message).pipe(
    // Tracked as the line is read, before any reader sees it: a turn's end is known even while readers lag.
    Effect.andThen(options.turns.observe(message)),
    Effect.flatMap((seen) => {
      // Acknowledgements of our own messages are the session's, unless the caller asked for the replays.
      const visible = !seen.acknowledgement || (seen.replayOf !== undefined && options.showReplays)
      return options.publish({ ...seen, message, visible })
    })
  )
}
