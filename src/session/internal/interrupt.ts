/**
 * A session's interrupt: ends the turn running, or owed, and waits for its end under one deadline.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as ControlAnswer from "../../schema/ControlAnswer.ts"
import type * as Protocol from "../Protocol.ts"
import * as SessionError from "../SessionError.ts"
import * as Answer from "./answer.ts"
import type * as Turns from "./turns.ts"

export const make = (options: {
  /** Also withdraws the prompts still queued (`cancel_queued`). */
  readonly cancelQueued: boolean
  readonly turns: Turns.Turns
  /** Sends a control request, reading the output ahead of slow readers until its answer. */
  readonly request: Protocol.Protocol["request"]
  /** Runs an effect while the output is read ahead of slow readers. */
  readonly readingAhead: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly timeout: Duration.Duration
  /** Ends the CLI by force, failing with the error. */
  readonly forceEnd: (error: SessionError.SessionError) => Effect.Effect<never, SessionError.SessionError>
  readonly closed: (operation: string) => Effect.Effect<SessionError.SessionError>
}): Effect.Effect<ControlAnswer.InterruptReceipt | undefined, SessionError.SessionError> =>
  Effect.flatMap(options.turns.current, (target) => {
    const { turns } = options
    const body = options.cancelQueued ? { subtype: "interrupt", cancel_queued: true } : { subtype: "interrupt" }
    // A CLI without `interrupt_receipt_v1` answers `{}`: no receipt.
    const receipt = (timeout?: Duration.Duration) =>
      Effect.flatMap(
        options.request(body, timeout === undefined ? undefined : { timeout }),
        (answer): Effect.Effect<ControlAnswer.InterruptReceipt | undefined, SessionError.SessionError> =>
          Predicate.isObject(answer) && "still_queued" in answer
            ? Answer.decode(ControlAnswer.InterruptReceipt, "interrupt")(answer)
            : Effect.succeed(undefined)
      )
    if (target === undefined) return receipt()
    const ask = receipt(Duration.infinity)
    // The CLI interrupts only a turn that has taken up its prompt; one it still holds queued would run on, so
    // the interrupt goes again once the turn takes it up (unless the turn has ended by then). The receipt is
    // the last one the CLI gave.
    const again = (answer: ControlAnswer.InterruptReceipt | undefined) =>
      target.takenUp || answer === undefined || answer.still_queued.length === 0
        ? Effect.succeed(answer)
        : Effect.flatMap(turns.awaitTakenUp(target.turn), (running) => running ? ask : Effect.succeed(answer))
    // One deadline for the CLI's answers and the end of the turn, which the reader sees as soon as the CLI
    // writes it: it reads ahead of slow readers meanwhile, so none of their time counts.
    return ask.pipe(
      Effect.flatMap(again),
      Effect.flatMap((answer) =>
        Effect.flatMap(turns.awaitEnd(target.turn), (ended) =>
          ended ? Effect.succeed(answer) : Effect.flatMap(options.closed("finish the interrupted turn"), Effect.fail))
      ),
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
