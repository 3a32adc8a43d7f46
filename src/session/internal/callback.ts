/**
 * Checks on what callbacks return: an Effect where one is due, answers that can be written as JSON.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

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

/**
 * An MCP tool's handler returned what cannot be a tool result: no Effect, `undefined`, a value that cannot be
 * written as JSON. The session answers the CLI with an error result naming it and reports it.
 */
export class InvalidResult extends Schema.TaggedError<InvalidResult>()("InvalidResult", {
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `the MCP tool "${this.tool}" ${this.detail}`
  }
}
