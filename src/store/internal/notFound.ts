/**
 * A file-system read whose `NotFound` failure means "nothing there": the missing file is a value.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as PlatformError from "effect/PlatformError"

/** Whether `e` is a `PlatformError` for a file that does not exist. */
export const is = (e: unknown): boolean => e instanceof PlatformError.PlatformError && e.reason._tag === "NotFound"

/** `self`, succeeding with `value` where it fails because its file does not exist. */
export const orElse = <A>(value: A) => <B, E, R>(self: Effect.Effect<B, E, R>) =>
  Effect.catchIf(self, is, () => Effect.succeed(value))
