/**
 * A session's interrupt: ends the turn running, or owed, and waits for its end under one deadline.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Protocol from "../Protocol.ts"
import * as SessionError from "../SessionError.ts"
import type * as Turns from "./turns.ts"

// What the CLI answers an interrupt that found prompts still in its queue: their uuids (it leaves them there).
const stillQueued = (answer: unknown): boolean => {
  const queued = typeof answer === "object" && answer !== null ? (answer as { still_queued?: unknown }).still_queued : undefined
  return Array.isArray(queued) && queued.length > 0
}

export const make = (options: {
  readonly turns: Turns.Turns
  /** Sends a control request, reading the output ahead of slow readers until its answer. */
  readonly request: Protocol.Protocol["request"]
  /** Runs an effect while the output is read ahead of slow readers. */
  readonly readingAhead: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly timeout: Duration.Duration
  /** Ends the CLI by force, failing with the error. */
  readonly forceEnd: (error: SessionError.SessionError) => Effect.Effect<never, SessionError.SessionError>
  readonly closed: (operation: string) => SessionError.SessionError
}): Effect.Effect<void, SessionError.SessionError> =>
  Effect.suspend(() => {
    const { turns } = options
    const target = turns.current()
    if (target === undefined) return Effect.asVoid(options.request({ subtype: "interrupt" }))
    const ask = options.request({ subtype: "interrupt" }, { timeout: Duration.infinity })
    // The CLI interrupts only a turn that has taken up its prompt; one it still holds queued would run on, so
    // the interrupt goes again once the turn takes it up (unless the turn has ended by then).
    const again = (answer: unknown) =>
      target.takenUp || !stillQueued(answer)
        ? Effect.void
        : Effect.flatMap(turns.awaitTakenUp(target.turn), (running) => running ? ask : Effect.void)
    // One deadline for the CLI's answers and the end of the turn, which the reader sees as soon as the CLI
    // writes it: it reads ahead of slow readers meanwhile, so none of their time counts.
    return ask.pipe(
      Effect.flatMap(again),
      Effect.andThen(turns.awaitEnd(target.turn)),
      Effect.flatMap((ended) => ended ? Effect.void : Effect.fail(options.closed("finish the interrupted turn"))),
      Effect.timeoutOrElse({
        duration: options.timeout,
        orElse: () =>
          options.forceEnd(SessionError.make(
            new SessionError.InterruptTimeout({ timeoutMillis: Duration.toMillis(options.timeout) })
          ))
      }),
      options.readingAhead
    )
  })
