/**
 * Checks on what callbacks return: an Effect where one is due, answers that can be written as JSON.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** What a value is, for a message about a wrong return. */
export const kindOf = (value: unknown): string =>
  value === undefined
    ? "undefined"
    : value === null
    ? "null"
    : typeof (value as { readonly then?: unknown }).then === "function"
    ? "a Promise (wrap it in Effect.promise or Effect.tryPromise)"
    : `a plain ${typeof value} (wrap it in Effect.succeed)`

/** The Effect a callback returned, or a failure naming what it returned instead. */
export const effectOf = <A = unknown>(callback: string, value: unknown): Effect.Effect<A, Error> =>
  Effect.isEffect(value)
    ? value as Effect.Effect<A, Error>
    : Effect.fail(new Error(`${callback} returned ${kindOf(value)} where an Effect is due`))

/** Why `value` cannot be written as JSON (a BigInt, a cycle, ...), or `undefined` when it can. */
export const jsonProblem = (value: unknown): string | undefined => {
  try {
    JSON.stringify(value)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
