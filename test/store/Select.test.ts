/**
 * `Sessions.select` over the config directory and over every kind of store returns what reading each session's
 * messages and filtering them in memory returns: the transcript corpus (fixtures and the shared corpus), each
 * file a session, split over two projects and imported into the store.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Filter from "../../src/filter/Filter.ts"
import type * as Item from "../../src/filter/Item.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as Sessions from "../../src/store/Sessions.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import { configDir, projects, reference, selected, sessionsRead } from "./support/select.ts"
import { stores } from "./support/stores.ts"

// The filters compared. The corpus has calls of each but `path:src/**` (no relative path): an empty answer
// cannot pass for the others.
const filters = ["tool:Bash & error", "path:src/**", "path:**/work/*.js", "tool:Read", "denied", "text"]
const mayBeEmpty = new Set(["path:src/**"])

const parse = (text: string) => Filter.parseResult(text).pipe((r) => r._tag === "Success" ? r.success : assert.fail(text))

layer(NodeServices.layer, { timeout: 120_000 })("Sessions.select", (it) => {
  it.effect("over the config directory: every project and one", () =>
    Effect.gen(function*() {
      const { dir } = yield* configDir
      const files = yield* SessionFiles.make({ configDir: dir })
      const read = yield* sessionsRead(files, {})
      for (const text of filters) {
        const filter = parse(text)
        const everywhere = yield* reference(read, filter)
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
          const read = yield* sessionsRead(files, {})
          for (const text of filters) {
            const filter = parse(text)
            const everywhere = yield* reference(read, filter)
            for (const projectKey of projects) {
              assert.deepStrictEqual(
                yield* selected(stored, filter, { projectKey }),
                everywhere.filter((r) => r.projectKey === projectKey),
                `${text} in ${projectKey}`
              )
            }
            if (!mayBeEmpty.has(text)) assert.isAbove(everywhere.length, 0, text)
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
