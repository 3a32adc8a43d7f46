/**
 * SessionFiles on sessions the real CLI writes in the test (scripted model): listing, reading in the order
 * the CLI wrote, subagents, fork (resumed by the CLI) and delete. Expectations come from the raw JSON lines.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import type * as Sessions from "../../src/store/Sessions.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import type * as Scenario from "../../src/testing/Scenario.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { jsonlFiles, rawEntries } from "../transcript/support.ts"

const subagentPrompt = "Count the files in the working directory and report the number."

// The subagent scenario's script, plus a conversation of its own for a second session.
const script = (context: Scenario.Context): Script.Script => {
  const base = Scenarios.subagent.script(context)
  const ada = Script.conversation("ada", MessagesRequest.firstUserTextIncludes("My name is Ada"), [
    Script.turn("Nice to meet you, Ada."),
    Script.turn("Your name is Ada.")
  ])
  return { ...base, conversations: [ada, ...base.conversations] }
}

const TestLayer = Layer.mergeAll(Scripted.layer(script, { files: { "a.txt": "a\n", "b.txt": "b\n" } }), NodeServices.layer)

// The session id of a query, from its init message.
const run = (prompt: string, options?: QueryOptions.QueryOptions) =>
  ClaudeCli.query(prompt, options).pipe(
    Stream.runCollect,
    Effect.map((messages) => messages.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0])
  )

// What the CLI wrote, read with JSON.parse alone: the conversation turns of a transcript in file order.
const rawTurns = (file: string, sidechain: boolean) =>
  rawEntries(file).filter((e) =>
    (e.type === "user" || e.type === "assistant") && e.isSidechain === sidechain && e.isMeta !== true
  )

const textOf = (m: Sessions.SessionMessage) => Transcript.isMessage(m) ? m.text : ""

describe("SessionFiles on sessions the real CLI wrote", () => {
  layer(TestLayer, { timeout: 120_000 })((it) => {
    it.effect("lists, reads, forks, resumes and deletes", () =>
      Effect.gen(function*() {
        const sandbox = yield* Scripted.Sandbox
        const sessions = yield* SessionFiles.make({ configDir: path.join(sandbox.home, ".claude") })

        const withAgent = yield* run("Use a subagent to count the files here.")
        const ada = yield* run("My name is Ada.")
        const projectDir = path.join(sandbox.home, ".claude", "projects")
        const transcripts = jsonlFiles(projectDir)
        const mainFile = (id: string) => transcripts.find((f) => path.basename(f) === `${id}.jsonl`)!

        // Listing: both sessions, with what their raw lines say.
        const listed = yield* sessions.listSessions({ dir: sandbox.cwd })
        assert.deepStrictEqual(listed.map((s) => s.sessionId).sort(), [withAgent, ada].sort())
        for (const info of listed) {
          const file = mainFile(info.sessionId)
          const raw = rawEntries(file)
          const lastPrompt = raw.filter((e) => e.type === "last-prompt").at(-1)!.lastPrompt
          assert.strictEqual(info.summary, lastPrompt)
          assert.strictEqual(info.firstPrompt, raw.find((e) => e.type === "user")!.message.content)
          assert.strictEqual(info.cwd, sandbox.cwd)
          assert.strictEqual(info.gitBranch, raw.find((e) => e.gitBranch !== undefined)?.gitBranch)
          assert.strictEqual(info.fileSize, fs.statSync(file).size)
          assert.strictEqual(info.createdAt, Date.parse(raw.find((e) => e.timestamp !== undefined)!.timestamp))
        }
        assert.deepStrictEqual((yield* sessions.listSessions()).map((s) => s.sessionId).sort(), [withAgent, ada].sort())
        assert.deepStrictEqual((yield* sessions.listSessions({ dir: sandbox.cwd, limit: 1, offset: 1 })).length, 1)
        const info = yield* sessions.getSessionInfo(ada)
        assert.strictEqual(Option.getOrThrow(info).summary, "My name is Ada.")

        // Messages in the order the CLI wrote them, sidechains apart.
        for (const id of [withAgent, ada]) {
          const messages = yield* Stream.runCollect(sessions.messages(id))
          assert.deepStrictEqual(messages.map((m) => m.uuid), rawTurns(mainFile(id), false).map((e) => e.uuid))
        }
        const paged = yield* Stream.runCollect(sessions.messages(withAgent, { offset: 1, limit: 2 }))
        assert.deepStrictEqual(paged.map((m) => m.uuid), rawTurns(mainFile(withAgent), false).slice(1, 3).map((e) => e.uuid))

        // The subagent: listed with its metadata, its own messages in order.
        const agents = yield* sessions.listSubagents(withAgent)
        assert.strictEqual(agents.length, 1)
        const agentFile = transcripts.find((f) => f.includes(`${path.sep}subagents${path.sep}agent-${agents[0].agentId}.jsonl`))!
        assert.isDefined(agentFile)
        assert.strictEqual(agents[0].agentType, "general-purpose")
        assert.strictEqual(agents[0].description, "Count files")
        const taskCall = rawEntries(mainFile(withAgent)).flatMap((e) => e.type === "assistant" ? e.message.content : [])
          .find((b: any) => b.type === "tool_use")
        assert.strictEqual(agents[0].toolUseId, taskCall.id)
        const agentMessages = yield* Stream.runCollect(sessions.subagentMessages(withAgent, agents[0].agentId))
        assert.deepStrictEqual(agentMessages.map((m) => m.uuid), rawTurns(agentFile, true).map((e) => e.uuid))
        assert.isTrue(agentMessages.some((m) => m._tag === "UserEntry" && m.text.includes(subagentPrompt)))
        assert.deepStrictEqual(yield* sessions.listSubagents(ada), [])

        // Fork: a new session with fresh uuids, which the CLI resumes with the history.
        const fork = yield* sessions.forkSession(ada)
        const forked = yield* Stream.runCollect(sessions.messages(fork.sessionId))
        const source = yield* Stream.runCollect(sessions.messages(ada))
        assert.deepStrictEqual(forked.map(textOf), source.map(textOf))
        assert.isTrue(forked.every((m) => !source.some((s) => s.uuid === m.uuid)))
        assert.strictEqual(Option.getOrThrow(yield* sessions.getSessionInfo(fork.sessionId)).customTitle, "My name is Ada. (fork)")
        const server = yield* ScriptedServer.ScriptedServer
        const before = (yield* server.requests).length
        const resumed = yield* run("What is my name?", { resume: fork.sessionId })
        assert.strictEqual(resumed, fork.sessionId)
        const request = ScriptedServer.turnRequests((yield* server.requests).slice(before))
          .map((r) => Option.getOrThrow(MessagesRequest.decode(r.body)))[0]
        assert.include(JSON.stringify(request.messages), "My name is Ada.")
        assert.include(JSON.stringify(request.messages), "Nice to meet you, Ada.")
        const after = yield* Stream.runCollect(sessions.messages(fork.sessionId))
        assert.strictEqual(textOf(after.at(-1)!), "Your name is Ada.")
        assert.strictEqual(after.length, forked.length + 2)

        // Delete: the transcript and its subagents go.
        yield* sessions.deleteSession(withAgent)
        assert.isFalse(fs.existsSync(mainFile(withAgent)))
        assert.isFalse(fs.existsSync(path.dirname(path.dirname(agentFile))))
        assert.isTrue(Option.isNone(yield* sessions.getSessionInfo(withAgent)))
        const missing = yield* Effect.flip(Stream.runCollect(sessions.messages(withAgent)))
        assert.strictEqual(missing.reason._tag, "SessionNotFound")
        const invalid = yield* Effect.flip(sessions.deleteSession("../etc"))
        // A session id that is not a UUID names no file: `InvalidKey` (was `InvalidSessionId`).
        assert.strictEqual(invalid.reason._tag, "InvalidKey")
      }))
  })
})
