/**
 * Appends are idempotent by entry `uuid`: the entries of a batch a store does not hold yet.
 *
 * @internal
 */
import type * as SessionStore from "../SessionStore.ts"

/** The entries of `entries` to append: those whose uuid is not in `held` (nor earlier in the batch), added to it. */
export const fresh = (held: Set<string>, entries: ReadonlyArray<SessionStore.Entry>): Array<SessionStore.Entry> =>
  entries.filter((entry) => {
    if (typeof entry.uuid !== "string") return true
    if (held.has(entry.uuid)) return false
    held.add(entry.uuid)
    return true
  })

/** A batch without the entries whose uuid came earlier in it; entries without a uuid are all kept. */
export const distinct = (entries: ReadonlyArray<SessionStore.Entry>): Array<SessionStore.Entry> => fresh(new Set(), entries)
