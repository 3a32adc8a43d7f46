/**
 * What an entity keeps across runners, on two runner processes and one real PostgreSQL (as the failover test):
 * the settings its RPCs changed come back with it on the runner it moves to, over the default binary serialization.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Runners from "./support/Runners.ts"

const { collect, first, resultText, within } = Runners

describe("AgentSession: durable entity state", () => {
  it.live("SetModel and SetPermissionMode survive the runner's death", () =>
    Runners.withCluster("binary", ({ cwd, moving: [name], runners, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        yield* client(name).SetModel({ model: "claude-scripted-other" }).pipe(within("30 seconds", "SetModel", runners))
        yield* client(name).SetPermissionMode({ mode: "acceptEdits" }).pipe(within("30 seconds", "SetPermissionMode", runners))
        const before = yield* client(name).Info().pipe(within("30 seconds", "info 2", runners))
        assert.deepStrictEqual([before.runner, before.model, before.permissionMode], [
          victim.address,
          "claude-scripted-other",
          "acceptEdits"
        ])

        victim.process.kill("SIGKILL")
        yield* Effect.promise(() => victim.exited)
        // The turn (persisted) reaches the entity once its shard is on the survivor; the CLI started there
        // writes in `acceptEdits`: the file is there, nothing denied on the way.
        const events = yield* collect(name, `${name}-write`, Runners.writePrompt(name)).pipe(
          within("120 seconds", "the write turn on the survivor", runners)
        )
        assert.strictEqual(resultText(events), first(name))
        assert.strictEqual(fs.readFileSync(path.join(cwd, Runners.writtenFile(name)), "utf8"), `${name} wrote this.\n`)
        const after = yield* client(name).Info().pipe(within("60 seconds", "Info on the survivor", runners))
        assert.deepStrictEqual([after.runner, after.model, after.permissionMode], [
          survivor.address,
          "claude-scripted-other",
          "acceptEdits"
        ])
        const result = events.at(-1)
        assert.deepStrictEqual(
          result?._tag === "TurnMessage" && result.message._tag === "ResultSuccess" ? result.message.permission_denials : undefined,
          []
        )
      })
    ).pipe(Effect.provide(NodeServices.layer)), 300_000)
})
