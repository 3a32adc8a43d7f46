/**
 * Helpers shared by the layer suites: run a query to its end and read how it ended.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type * as CliError from "../../src/ClaudeCliError.ts"

/** The reason of a failed run (fails the test if the run did not fail with a `ClaudeCliError`). */
export const reasonOf = <A>(exit: Exit.Exit<A, CliError.ClaudeCliError>): CliError.Reason => {
  const error = Exit.findErrorOption(exit)
  assert.strictEqual(error._tag, "Some", "the stream should fail with a ClaudeCliError")
  return (error as { readonly value: CliError.ClaudeCliError }).value.reason
}

/** Every item a consumer saw, and how the stream ended. */
export const runToEnd = <A, R>(
  stream: Stream.Stream<A, CliError.ClaudeCliError, R>
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly exit: Exit.Exit<void, CliError.ClaudeCliError> }, never, R> =>
  Effect.suspend(() => {
    const items: Array<A> = []
    return Effect.map(
      Effect.exit(Stream.runForEach(stream, (item) => Effect.sync(() => void items.push(item)))),
      (exit) => ({ items, exit })
    )
  })
