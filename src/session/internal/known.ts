/**
 * What the CLI has told of the session so far: its id (from its `system/init`) and its `initialize` answer,
 * kept current by its `commands_changed` notices and the answers of the controls that reload it.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as ControlAnswer from "../../schema/ControlAnswer.ts"
import type * as SessionError from "../SessionError.ts"
import type { Message } from "./message.ts"

export interface Known {
  /** The session id, `""` until the CLI has written it. */
  readonly sessionId: Effect.Effect<string>
  /** Waits for the session id; fails with the error of `fail` when it will never come. */
  readonly awaitSessionId: Effect.Effect<string, SessionError.SessionError>
  /** The session id will never come: the session ended. */
  readonly fail: (error: SessionError.SessionError) => Effect.Effect<void>
  /** The latest initialization; a plain read, for the session's `initialization` property. */
  readonly initialization: () => ControlAnswer.Initialization
  /** A new `initialize` answer. */
  readonly initialized: (initialization: ControlAnswer.Initialization) => Effect.Effect<void>
  /** Updates fields of the initialization. */
  readonly update: (fields: Partial<ControlAnswer.Initialization>) => Effect.Effect<void>
  /** Learns from a message of the output. */
  readonly observe: (message: Message) => Effect.Effect<void>
}

export const make: Effect.Effect<Known> = Effect.gen(function*() {
  const sessionId = yield* Ref.make("")
  const sessionIdKnown = yield* Deferred.make<string, SessionError.SessionError>()
  // Nothing until the CLI answers `initialize`.
  const initialization = yield* Ref.make<ControlAnswer.Initialization>({
    commands: [],
    agents: [],
    models: [],
    available_output_styles: []
  })
  const update = (fields: Partial<ControlAnswer.Initialization>) =>
    Ref.update(initialization, (current) => ({ ...current, ...fields }))
  return {
    sessionId: Ref.get(sessionId),
    awaitSessionId: Deferred.await(sessionIdKnown),
    fail: (error) => Effect.asVoid(Deferred.fail(sessionIdKnown, error)),
    initialization: () => Ref.getUnsafe(initialization),
    initialized: (answer) => Ref.set(initialization, answer),
    update,
    observe: (message) =>
      message._tag === "SystemCommandsChanged"
        ? update({ commands: message.commands })
        : message._tag === "SystemInit"
        ? Effect.andThen(Ref.set(sessionId, message.session_id), Deferred.succeed(sessionIdKnown, message.session_id))
        : Effect.void
  }
})
