/**
 * The keys of the store contract: as one string, checked before a store sees them, a session found by its id
 * alone, and the subpath reserved for archive marks.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as SessionStore from "../SessionStore.ts"

/** A key as one string (for errors and maps). */
export const keyString = (key: SessionStore.SessionKey): string =>
  `${key.projectKey}/${key.sessionId}${key.subpath === undefined ? "" : `/${key.subpath}`}`

/** A failure of the store's storage as a `SessionStoreError` (`OperationFailed`); one already is kept. */
export const operationFailed = (operation: SessionStore.Operation, key: SessionStore.SessionKey | string) =>
(cause: unknown): SessionStore.SessionStoreError =>
  cause instanceof SessionStore.SessionStoreError
    ? cause
    : new SessionStore.SessionStoreError({
      reason: new SessionStore.OperationFailed({ operation, key: typeof key === "string" ? key : keyString(key), cause })
    })

// Why a name is no file or directory name a store can keep, if it is not.
const badName = (name: string): string | undefined =>
  name === ""
    ? "is empty"
    : name === "." || name === ".."
    ? "names a directory relative to another"
    : /[\\/]/.test(name)
    ? "has a path separator"
    : name.includes("\0")
    ? "has a NUL character"
    : undefined

// Why a subpath is not names joined by `/`, naming the part that is not one.
const badSubpath = (subpath: string): string | undefined => {
  for (const part of subpath.split("/")) {
    const why = badName(part)
    if (why !== undefined) return `its part ${JSON.stringify(part)} ${why}`
  }
  return undefined
}

/**
 * Checks the parts of a key a store is given: `projectKey` and `sessionId` are each a name (not empty, not
 * `.` or `..`, without a path separator or a NUL), a `subpath` is names joined by `/`. Fails with `InvalidKey`
 * naming the part.
 */
export const validateKey = (
  operation: SessionStore.Operation,
  key: { readonly projectKey?: string | undefined; readonly sessionId?: string | undefined; readonly subpath?: string | undefined }
): Effect.Effect<void, SessionStore.SessionStoreError> => {
  const problem = (field: "projectKey" | "sessionId" | "subpath", value: string, detail: string | undefined) =>
    detail === undefined ? undefined : new SessionStore.InvalidKey({ operation, field, value, detail })
  const name = (why: string | undefined) => why === undefined ? undefined : `it ${why}`
  const reason = (key.projectKey === undefined ? undefined : problem("projectKey", key.projectKey, name(badName(key.projectKey)))) ??
    (key.sessionId === undefined ? undefined : problem("sessionId", key.sessionId, name(badName(key.sessionId)))) ??
    (key.subpath === undefined ? undefined : problem("subpath", key.subpath, badSubpath(key.subpath)))
  return reason === undefined ? Effect.void : Effect.fail(new SessionStore.SessionStoreError({ reason }))
}

/** `store` refusing, with `InvalidKey`, every key {@link validateKey} refuses, before `store` sees it. Every store here is made so. */
export const validating = (store: SessionStore.Shape): SessionStore.Shape => ({
  append: (key, entries, fence) => Effect.andThen(validateKey("append", key), store.append(key, entries, fence)),
  load: (key) => Effect.andThen(validateKey("load", key), store.load(key)),
  listSessions: (projectKey) => Effect.andThen(validateKey("listSessions", { projectKey }), store.listSessions(projectKey)),
  listSessionSummaries: (projectKey) =>
    Effect.andThen(validateKey("listSessionSummaries", { projectKey }), store.listSessionSummaries(projectKey)),
  listSubkeys: (key) => Effect.andThen(validateKey("listSubkeys", { ...key, subpath: undefined }), store.listSubkeys(key)),
  delete: (key) => Effect.andThen(validateKey("delete", { ...key, subpath: undefined }), store.delete(key)),
  ...(store.findProjects !== undefined && {
    findProjects: (sessionId: string) => Effect.andThen(validateKey("findProjects", { sessionId }), store.findProjects!(sessionId))
  }),
  ...(store.leases !== undefined && { leases: store.leases }),
  ...(store.listProjects !== undefined && { listProjects: store.listProjects }),
  ...(store.toolCalls !== undefined && { toolCalls: store.toolCalls })
})

/**
 * Finds a session by its id alone: the key of the one project of the store that holds it. Fails with
 * `SessionNotFound` when none does (or the store has no `findProjects`), and with `AmbiguousSession` naming
 * the projects when several do.
 */
export const locate = (
  store: SessionStore.Shape,
  sessionId: string
): Effect.Effect<Omit<SessionStore.SessionKey, "subpath">, SessionStore.SessionStoreError> => {
  const notFound = (detail: string) =>
    Effect.fail(new SessionStore.SessionStoreError({ reason: new SessionStore.SessionNotFound({ sessionId, detail }) }))
  if (store.findProjects === undefined) return notFound("this store cannot find sessions by id alone (it has no findProjects): give its projectKey")
  return Effect.flatMap(store.findProjects(sessionId), (projectKeys) =>
    projectKeys.length === 1
      ? Effect.succeed({ projectKey: projectKeys[0]!, sessionId })
      : projectKeys.length === 0
      ? notFound("no project of the store holds it")
      : Effect.fail(
        new SessionStore.SessionStoreError({
          reason: new SessionStore.AmbiguousSession({ sessionId, projectKeys: [...projectKeys].sort() })
        })
      ))
}

/**
 * The subpath under which a store keeps a session's archive marks (`Sessions`' `archiveSession` over a store),
 * one entry per change, the last one holding: what the SDK keeps beside a transcript as
 * `<session id>/archived.json`, which `SessionTransfer.materialize` writes back and `importSession` reads.
 */
export const archiveSubpath = "archived"
