/**
 * The readable text of a failure, for answers that go back to the CLI or the model.
 *
 * @internal
 */
import * as Cause from "effect/Cause"

/** The message of a cause's first error or defect. */
export const describe = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}
