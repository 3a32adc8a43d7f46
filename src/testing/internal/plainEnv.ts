/**
 * A command's own environment as plain strings, as a test reads it: the variables set to `undefined` left out,
 * `Redacted` values unwrapped.
 *
 * @internal
 */
import type * as ChildProcess from "effect/process/ChildProcess"
import * as Redacted from "effect/Redacted"

/** @internal */
export const plainEnv = (env: ChildProcess.CommandOptions["env"]): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Redacted.isRedacted(value) ? Redacted.value(value) : value]]
    )
  )
