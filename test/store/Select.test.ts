/**
 * `Sessions.select` over the config directory and over every kind of store returns what reading each session's
 * messages and filtering them in memory returns: the transcript corpus (fixtures and the shared corpus), each
 * file a session, split over two projects and imported into the store.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as Sessions from "../../src/store/Sessions.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import * as TranscriptMessages from "../../src/transcript/Messages.ts"
import { transcriptFiles } from "../support/Corpus.ts"
import { stores } from "./support/stores.ts"

const projects = ["-work-alpha", "-work-beta"]

// The filters compared. The corpus has calls of each but `path:src/**` (no relative path): an empty answer
// cannot pass for the others.
const filters = ["tool:Bash & error", "path:src/**", "path:**/work/*.js", "tool:Read", "denied", "text"]
const mayBeEmpty = new Set(["path:src/**"])

const sessionIdOf = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`

// A config directory holding every transcript of the corpus as a session, alternately in each project.
const configDir = Effect.gen(function*() {
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

// One item as compared: its session and its JSON.
const row = (selected: Sessions.Selected) => ({
  projectKey: selected.projectKey,
  sessionId: selected.sessionId,
  item: Item.toJson(selected.item)
})

// Sessions come most recently modified first, which differs between a directory and a store: compared by
// session, each session's items in their order.
const bySession = (rows: ReadonlyArray<ReturnType<typeof row>>) =>
  [...rows].sort((a, b) => a.projectKey.localeCompare(b.projectKey) || a.sessionId.localeCompare(b.sessionId))

// The reference: every session listed, its messages read whole, then filtered in memory.
const reference = (sessions: Sessions.Shape, filter: Filter.Filter, options: Sessions.LookupOptions) =>
  Effect.gen(function*() {
    const rows: Array<ReturnType<typeof row>> = []
    for (const { projectKey, sessionId } of yield* sessions.listSessions(options)) {
      const messages = yield* Stream.runCollect(sessions.messages(sessionId, { projectKey }))
      const items = yield* Stream.runCollect(
        Stream.fromIterable(messages.flatMap((m) => TranscriptMessages.toMessage(m) ?? [])).pipe(Item.select(filter))
      )
      rows.push(...items.map((item) => row({ projectKey, sessionId, item })))
    }
    return bySession(rows)
  })

const selected = (sessions: Sessions.Shape, filter: Filter.Filter, options: Sessions.LookupOptions) =>
  Sessions.select(filter, options).pipe(
    Stream.map(row),
    Stream.runCollect,
    Effect.map(bySession),
    Effect.provideService(Sessions.Sessions, sessions)
  )

layer(NodeServices.layer, { timeout: 120_000 })("Sessions.select", (it) => {
  it.effect("over the config directory: every project and one", () =>
    Effect.gen(function*() {
      const { dir } = yield* configDir
      const files = yield* SessionFiles.make({ configDir: dir })
      for (const text of filters) {
        const filter = Filter.parseResult(text).pipe((r) => r._tag === "Success" ? r.success : assert.fail(text))
        const everywhere = yield* reference(files, filter, {})
        if (!mayBeEmpty.has(text)) assert.isAbove(everywhere.length, 0, text)
        assert.deepStrictEqual(yield* selected(files, filter, {}), everywhere, text)
        for (const projectKey of projects) {
          const one = yield* selected(files, filter, { projectKey })
          assert.deepStrictEqual(one, everywhere.filter((r) => r.projectKey === projectKey), `${text} in ${projectKey}`)
        }
      }
    }))

  describe("over a store", () => {
    for (const { name, make } of stores) {
      it.effect(name, () =>
        Effect.gen(function*() {
          const { dir, sessions } = yield* configDir
          const files = yield* SessionFiles.make({ configDir: dir })
          const store = yield* make
          for (const source of sessions) yield* SessionTransfer.importSession(store, { configDir: dir, ...source })
          const stored = yield* StoredSessions.make(store)
          for (const text of filters) {
            const filter = Filter.parseResult(text).pipe((r) => r._tag === "Success" ? r.success : assert.fail(text))
            for (const projectKey of projects) {
              const expected = yield* reference(files, filter, { projectKey })
              assert.deepStrictEqual(yield* selected(stored, filter, { projectKey }), expected, `${text} in ${projectKey}`)
            }
            if (!mayBeEmpty.has(text)) assert.isAbove((yield* reference(files, filter, {})).length, 0, text)
          }
        }))
    }
  })
})

describe("Sessions.select types", () => {
  it("narrows as the filter does", () => {
    const calls = Sessions.select(Filter.toolUse("Bash"))
    const check: Stream.Stream<Sessions.Selected<Item.ToolUseItem<"Bash">>, unknown, Sessions.Sessions> = calls
    assert.isDefined(check)
  })
})
