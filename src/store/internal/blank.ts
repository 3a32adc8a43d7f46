/**
 * A title or tag given to a session that is blank: `InvalidEntry`, before anything is written. The same over a
 * config directory and over a store.
 *
 * @internal
 */
import * as SessionStore from "../SessionStore.ts"

/** The failure for a blank title or tag of the session `key` names (a tag is cleared with `null`). */
export const blank = (key: string, field: "title" | "tag"): SessionStore.SessionStoreError =>
  new SessionStore.SessionStoreError({
    reason: new SessionStore.InvalidEntry({
      operation: "append",
      key,
      detail: field === "title" ? "a session title cannot be blank" : "a tag cannot be blank (null clears the tag)"
    })
  })
