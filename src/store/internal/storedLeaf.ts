/**
 * Where a lease's holder resumes a stored conversation: the last answer the store took. The store takes a
 * conversation's appends from its lease's holder alone, so what it took last is the holder of now's line;
 * a branch that a holder since fenced out left (a turn it was running when it lost the lease, retried from an
 * earlier answer by the next holder) comes before it. Without the point the CLI may resume at the end of
 * that dead branch: of two ends it can pick the older one (seen with CLI 2.1.332: the retried answer is
 * followed by an attachment, the dead branch ends at a tool call).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as ProjectKey from "../ProjectKey.ts"
import type * as SessionStore from "../SessionStore.ts"
import * as Keys from "./keys.ts"

// The store's project key of the session: the one given, else found by id, else `cwd`'s (as a resume
// restores it, see `SessionMirror.restore`).
const projectKeyOf = (options: SessionStore.StoreOptions, sessionId: string, cwd: string | undefined) => {
  const ofCwd = () => {
    const dir = cwd ?? process.cwd()
    let real = nodePath.resolve(dir)
    try {
      real = fs.realpathSync(dir)
    } catch {
      // A folder that is not there yet: its path as given.
    }
    return ProjectKey.fromPath(real)
  }
  if (options.projectKey !== undefined) return Effect.succeed(options.projectKey)
  if (options.store.findProjects === undefined) return Effect.sync(ofCwd)
  return Keys.locate(options.store, sessionId).pipe(
    Effect.map((key) => key.projectKey),
    Effect.catchReason("SessionStoreError", "SessionNotFound", () => Effect.sync(ofCwd))
  )
}

/**
 * The uuid of the last assistant entry of the session's main transcript in the store (sidechains apart), or
 * `undefined` when the store holds none.
 *
 * @internal
 */
export const lastAnswer = (
  options: SessionStore.StoreOptions,
  sessionId: string,
  cwd: string | undefined
): Effect.Effect<string | undefined, SessionStore.SessionStoreError> =>
  Effect.gen(function*() {
    const projectKey = yield* projectKeyOf(options, sessionId, cwd)
    const entries = yield* options.store.load({ projectKey, sessionId })
    const last = Option.getOrElse(entries, (): ReadonlyArray<SessionStore.Entry> => []).findLast((entry) =>
      entry.type === "assistant" && entry.isSidechain !== true && typeof entry.uuid === "string"
    )
    return last?.uuid as string | undefined
  })
