/**
 * What the tests of `Sessions.select` share: the transcript corpus (fixtures and the shared corpus) as a config
 * directory, each file a session, alternately in two projects; the items compared (session and JSON); and the
 * reference, every session listed, its messages read whole, then filtered in memory.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Filter from "../../../src/filter/Filter.ts"
import * as Item from "../../../src/filter/Item.ts"
import * as Sessions from "../../../src/store/Sessions.ts"
import * as TranscriptMessages from "../../../src/transcript/Messages.ts"
import { transcriptFiles } from "../../support/Corpus.ts"

export const projects = ["-work-alpha", "-work-beta"]

export const sessionIdOf = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`

/** A config directory holding every transcript of the corpus as a session, alternately in each project. */
export const configDir = Effect.gen(function*() {
  const fsx = yield* FileSystem.FileSystem
  const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "select-" }))
  const sessions = transcriptFiles.map((file, index) => ({
    file,
    projectKey: projects[index % projects.length]!,
    sessionId: sessionIdOf(index)
  }))
  for (const { file, projectKey, sessionId } of sessions) {
    fs.mkdirSync(path.join(dir, "projects", projectKey), { recursive: true })
    fs.copyFileSync(file, path.join(dir, "projects", projectKey, `${sessionId}.jsonl`))
  }
  return { dir, sessions }
})

/** One item as compared: its session and its JSON. */
export const row = (selected: Sessions.Selected) => ({
  projectKey: selected.projectKey,
  sessionId: selected.sessionId,
  item: Item.toJson(selected.item)
})

export type Row = ReturnType<typeof row>

/**
 * Sessions come most recently modified first, which differs between a directory and a store: compared by
 * session, each session's items in their order.
 */
export const bySession = (rows: ReadonlyArray<Row>) =>
  [...rows].sort((a, b) => a.projectKey.localeCompare(b.projectKey) || a.sessionId.localeCompare(b.sessionId))

/** The reference: the messages of every session read whole, then filtered in memory. */
export const reference = (
  read: ReadonlyArray<{ readonly projectKey: string; readonly sessionId: string; readonly messages: ReadonlyArray<Sessions.SessionMessage> }>,
  filter: Filter.Filter
) =>
  Effect.gen(function*() {
    const rows: Array<Row> = []
    for (const { messages, projectKey, sessionId } of read) {
      const items = yield* Stream.runCollect(
        Stream.fromIterable(messages.flatMap((m) => TranscriptMessages.toMessage(m) ?? [])).pipe(Item.select(filter))
      )
      rows.push(...items.map((item) => row({ projectKey, sessionId, item })))
    }
    return bySession(rows)
  })

/** Every session `listSessions` lists (of a project, or every project), with its messages read whole. */
export const sessionsRead = (sessions: Sessions.Shape, options: Sessions.LookupOptions) =>
  Effect.gen(function*() {
    const read = []
    for (const { projectKey, sessionId } of yield* sessions.listSessions(options)) {
      read.push({ projectKey, sessionId, messages: yield* Stream.runCollect(sessions.messages(sessionId, { projectKey })) })
    }
    return read
  })

/** What `Sessions.select` gives, as compared. */
export const selected = (sessions: Sessions.Shape, filter: Filter.Filter, options: Sessions.SelectOptions) =>
  Sessions.select(filter, options).pipe(
    Stream.map(row),
    Stream.runCollect,
    Effect.map(bySession),
    Effect.provideService(Sessions.Sessions, sessions)
  )
