/**
 * Durable sessions: a conversation mirrored into a `SessionStore` goes on in a process, or on a machine, that
 * never saw it; `Sessions` reads it, from the transcripts the CLI keeps on disk or from the store.
 */
import { Effect, Stream } from "effect"
import { ClaudeCli } from "../src/index.ts"
import { Sessions, SessionStore } from "../src/store/index.ts"
import { Summary } from "../src/stream/index.ts"

// Starts a conversation; its transcript reaches the store as the CLI writes it. Any store works:
// `DirectorySessionStore.layer(root)`, `SqlSessionStore.layerSqlite({ filename })`, or `SqlSessionStore.layer()`
// over the `SqlClient` of a PostgreSQL that many machines share.
export const start = (prompt: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    return yield* ClaudeCli.query(prompt, { sessionStore: store }).pipe(Stream.run(Summary.sink))
  })

// Goes on with a stored conversation: before the CLI starts, the store writes the transcript where this
// machine's CLI looks for it. `projectKey` names the directory the conversation ran in, if not this one.
export const resume = (conversation: { readonly sessionId: string; readonly projectKey?: string }, prompt: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    return yield* ClaudeCli.query(prompt, {
      resume: conversation.sessionId,
      sessionStore: { store, projectKey: conversation.projectKey }
    }).pipe(Stream.run(Summary.sink))
  })

// What a session said, in conversation order (in the project of `dir`, else found by its id alone): from the
// CLI's transcripts with `SessionFiles.layer()`, or from the store with `StoredSessions.layer`.
export const conversation = (sessionId: string, dir?: string) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions.Sessions
    const messages = yield* Stream.runCollect(sessions.messages(sessionId, { dir }))
    return messages.flatMap((entry) => entry._tag === "UserEntry" || entry._tag === "AssistantEntry" ? [`${entry.type}: ${entry.text}`] : [])
  })
