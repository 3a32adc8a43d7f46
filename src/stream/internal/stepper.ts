/**
 * Runs a synchronous, stateful per-chunk step function as a Stream stage.
 *
 * The hot paths of this package (framing, decoding, assembling) work on whole
 * chunks with plain loops; only one Effect is allocated per upstream chunk,
 * never per element.
 *
 * @internal
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"

/**
 * A stateful transformation: `step` appends the outputs of one input chunk to
 * `out` and returns an error to stop after them; `flush` runs once at the end.
 *
 * @internal
 */
export interface Stepper<A, B, E> {
  readonly step: (chunk: Arr.NonEmptyReadonlyArray<A>, out: Array<B>) => E | undefined
  readonly flush: (out: Array<B>) => E | undefined
}

/** @internal */
export const noFlush = (): undefined => undefined

/**
 * Applies a fresh stepper (one per run of the stream) to a stream.
 *
 * @internal
 */
export const applyStepper = <A, E, R, B, E2>(
  self: Stream.Stream<A, E, R>,
  make: () => Stepper<A, B, E2>
): Stream.Stream<B, E | E2, R> =>
  Stream.transformPull(self, (upstream) =>
    Effect.sync(() => {
      const stepper = make()
      let failure: E2 | undefined
      let ended = false
      const emit = (out: Array<B>, error: E2 | undefined) => {
        failure = error
        if (out.length > 0) return Effect.succeed(out as unknown as Arr.NonEmptyReadonlyArray<B>)
        return error !== undefined ? Effect.fail(error) : undefined
      }
      const pull: Pull.Pull<Arr.NonEmptyReadonlyArray<B>, E | E2> = Effect.suspend(() => {
        if (failure !== undefined) return Effect.fail(failure)
        if (ended) return Cause.done()
        return Pull.matchEffect(upstream, {
          onSuccess: (chunk) => {
            const out: Array<B> = []
            return emit(out, stepper.step(chunk, out)) ?? pull
          },
          onFailure: Effect.failCause,
          onDone: (): Pull.Pull<Arr.NonEmptyReadonlyArray<B>, E2> => {
            ended = true
            const out: Array<B> = []
            return emit(out, stepper.flush(out)) ?? Cause.done()
          }
        })
      })
      return pull
    }))
