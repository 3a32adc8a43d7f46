/**
 * The conversation SessionFiles and StoredSessions read is the one the official SDK's `getSessionMessages`
 * reads, in its order: on transcripts the real CLI writes with parallel tool calls (whose results hang off
 * sibling branches, one of them failed), a compaction, and a prompt sent while a tool ran.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import type * as Sessions from "../../src/store/Sessions.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import type * as Scenario from "../../src/testing/Scenario.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import { compactScenario, jsonlFiles, parallelBashScenario, rawEntries, realConfigDirs } from "../transcript/support.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"

// Three calls in one API message: one succeeds, two fail (a Bash exit and a Read of a missing file).
const threeCalls: Scenario.Scenario = {
  name: "three_calls",
  description: "",
  prompt: "Look around",
  args: ["--allowedTools", "Bash,Read"],
  files: { "present.txt": "here\n" },
  script: () =>
    Script.make([
      Script.turn([
        Script.toolUse("Bash", { command: "cat present.txt", description: "Print present.txt" }),
        Script.toolUse("Bash", { command: "cat missing.txt", description: "Print missing.txt" }),
        Script.toolUse("Read", { file_path: "/nonexistent/nowhere.txt" })
      ]),
      Script.turn([Script.toolUse("Bash", { command: "exit 3", description: "Exit 3" })]),
      Script.turn("done.")
    ])
}

const uuids = (messages: Iterable<{ readonly uuid: string }>) => Array.from(messages, (m) => m.uuid)

// The SDK reads the config directory named by CLAUDE_CONFIG_DIR.
const withConfigDir = <A>(configDir: string, f: (sdk: typeof import("@anthropic-ai/claude-agent-sdk")) => Promise<A>) =>
  Effect.promise(async () => {
    const sdk = await import("@anthropic-ai/claude-agent-sdk")
    const before = process.env.CLAUDE_CONFIG_DIR
    process.env.CLAUDE_CONFIG_DIR = configDir
    try {
      return await f(sdk)
    } finally {
      if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR
      else process.env.CLAUDE_CONFIG_DIR = before
    }
  })

const sdkMessages = (configDir: string, sessionId: string, includeSystemMessages: boolean) =>
  Effect.map(withConfigDir(configDir, (sdk) => sdk.getSessionMessages(sessionId, { includeSystemMessages })), uuids)

// The tool results of the transcript that say is_error, read with JSON.parse alone.
const failedResults = (file: string) =>
  rawEntries(file).filter((e) =>
    e.type === "user" && Array.isArray(e.message.content) &&
    e.message.content.some((b: any) => b.type === "tool_result" && b.is_error === true)
  ).map((e) => e.uuid as string)

describe("the conversation as the SDK reads it", () => {
  it.effect("parallel calls and a compaction, from files and from a store", () =>
    Effect.gen(function*() {
      const dirs = yield* realConfigDirs([parallelBashScenario, threeCalls, compactScenario])
      const failedSeen: Array<number> = []
      for (const configDir of dirs) {
        const files = yield* SessionFiles.make({ configDir })
        const [file] = jsonlFiles(path.join(configDir, "projects"))
        const projectKey = path.basename(path.dirname(file!))
        const sessionId = path.basename(file!, ".jsonl")
        for (const includeSystemMessages of [false, true]) {
          const ours = uuids(yield* Stream.runCollect(files.messages(sessionId, { includeSystemMessages })))
          assert.deepStrictEqual(ours, yield* sdkMessages(configDir, sessionId, includeSystemMessages))
          const store = MemorySessionStore.make()
          yield* SessionTransfer.importSession(store, { configDir, projectKey, sessionId })
          const stored = (yield* StoredSessions.make(store)).messages(sessionId, { projectKey, includeSystemMessages })
          assert.deepStrictEqual(uuids(yield* Stream.runCollect(stored)), ours)
        }
        const ours = uuids(yield* Stream.runCollect(files.messages(sessionId)))
        const failed = failedResults(file!)
        for (const uuid of failed) assert.include(ours, uuid)
        failedSeen.push(failed.length)
      }
      // The parallel calls' failed results (one, then two of three) are there to be kept.
      assert.deepStrictEqual(failedSeen.slice(0, 2), [1, 3])
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 180_000 })

  it.effect("a subagent's messages, as the SDK's getSubagentMessages reads them", () =>
    Effect.gen(function*() {
      const [configDir] = yield* realConfigDirs([Scenarios.subagent])
      const [file] = jsonlFiles(path.join(configDir!, "projects"))
      const sessionId = path.basename(file!, ".jsonl")
      const files = yield* SessionFiles.make({ configDir: configDir! })
      const [agent] = yield* files.listSubagents(sessionId)
      const ours = uuids(yield* Stream.runCollect(files.subagentMessages(sessionId, agent!.agentId)))
      assert.isAbove(ours.length, 2)
      const theirs = yield* withConfigDir(configDir!, (sdk) => sdk.getSubagentMessages(sessionId, agent!.agentId))
      assert.deepStrictEqual(ours, uuids(theirs))
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 120_000 })

  it.live("a prompt sent while a tool runs is a user message where the model read it", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const session = yield* ClaudeCli.session({ allowedTools: ["Bash"] })
      const output = yield* session.subscribe
      yield* session.send("Run a slow command")
      let sent = false
      yield* output.pipe(
        Stream.tap((m) =>
          m._tag === "AssistantMessage" && !sent ? Effect.andThen(Effect.sync(() => (sent = true)), session.send("Also say hi")) : Effect.void
        ),
        Stream.takeUntil((m) => m._tag === "ResultSuccess"),
        Stream.runDrain,
        Effect.timeout("60 seconds")
      )
      const configDir = sandbox.env.CLAUDE_CONFIG_DIR!
      const [file] = jsonlFiles(path.join(configDir, "projects"))
      const sessionId = path.basename(file!, ".jsonl")
      // The CLI wrote the second prompt as a queued command, answered in the same turn.
      const queued = rawEntries(file!).filter((e) => e.type === "attachment" && e.attachment.type === "queued_command")
      assert.strictEqual(queued.length, 1)
      const files = yield* SessionFiles.make({ configDir })
      const ours = yield* Stream.runCollect(files.messages(sessionId))
      assert.deepStrictEqual(uuids(ours), yield* sdkMessages(configDir, sessionId, false))
      assert.include(ours.map((m) => m.type === "user" ? m.text : ""), "Also say hi")
    }).pipe(
      Effect.scoped,
      Effect.provide(Scripted.layer(Script.make([
        Script.turn([Script.toolUse("Bash", { command: "sleep 3", description: "Wait" })]),
        Script.turn("Done, and hi.")
      ]))),
      Effect.provide(NodeServices.layer)
    ), { timeout: 120_000 })

  layer(NodeServices.layer)("a compaction that kept recent messages", (it) => {
    const sessionId = "aaaaaaaa-0000-4000-8000-00000000000d"
    const at = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, "0")}.000Z`
    const user = (uuid: string, parentUuid: string | null, content: string, n: number, extra: object = {}) => ({
      type: "user", uuid, parentUuid, isSidechain: false, sessionId, timestamp: at(n), message: { role: "user", content }, ...extra
    })
    const assistant = (uuid: string, parentUuid: string, text: string, n: number) => ({
      type: "assistant", uuid, parentUuid, isSidechain: false, sessionId, timestamp: at(n),
      message: { id: `msg_${uuid}`, type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } }
    })
    // Two turns, a compaction whose summary keeps the second (as metadata says), then a third turn.
    const transcript = (metadata: object) => [
      user("u1", null, "q1", 1),
      assistant("a1", "u1", "r1", 2),
      user("u2", "a1", "q2", 3),
      assistant("a2", "u2", "r2", 4),
      { type: "system", subtype: "compact_boundary", uuid: "b", parentUuid: null, logicalParentUuid: "a2", isSidechain: false, sessionId, timestamp: at(5), content: "Conversation compacted", compactMetadata: { trigger: "manual", preTokens: 9, ...metadata } },
      user("s", "b", "summary", 6, { isCompactSummary: true }),
      user("u3", "s", "q3", 7),
      assistant("a3", "u3", "r3", 8)
    ]

    it.effect("the conversation ends on the branch written last", () =>
      Effect.gen(function*() {
        const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
        const dir = path.join(configDir, "projects", "-work")
        fs.mkdirSync(dir, { recursive: true })
        // A note written last, going on from the first reply: the branch of the second turn was left.
        const lines = [
          ...transcript({}).slice(0, 4),
          { type: "system", subtype: "informational", uuid: "n", parentUuid: "a1", isSidechain: false, sessionId, timestamp: at(9), content: "note", level: "info" }
        ]
        fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.map((e) => JSON.stringify(e) + "\n").join(""))
        const files = yield* SessionFiles.make({ configDir })
        const ours = uuids(yield* Stream.runCollect(files.messages(sessionId, { includeSystemMessages: true })))
        assert.deepStrictEqual(ours, yield* sdkMessages(configDir, sessionId, true))
        assert.deepStrictEqual(ours, ["u1", "a1"])
      }))

    for (const [name, metadata] of [
      ["preservedSegment", { preservedSegment: { headUuid: "u2", anchorUuid: "s", tailUuid: "a2" } }],
      ["preservedMessages", { preservedMessages: { uuids: ["u2", "a2"], anchorUuid: "s" } }]
    ] as const) {
      it.effect(`${name}: after the summary, then what followed`, () =>
        Effect.gen(function*() {
          const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
          const dir = path.join(configDir, "projects", "-work")
          fs.mkdirSync(dir, { recursive: true })
          fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), transcript(metadata).map((e) => JSON.stringify(e) + "\n").join(""))
          const files = yield* SessionFiles.make({ configDir })
          for (const includeSystemMessages of [false, true]) {
            const ours = uuids(yield* Stream.runCollect(files.messages(sessionId, { includeSystemMessages })))
            assert.deepStrictEqual(ours, yield* sdkMessages(configDir, sessionId, includeSystemMessages))
          }
          assert.deepStrictEqual(uuids(yield* Stream.runCollect(files.messages(sessionId))), ["s", "u2", "a2", "u3", "a3"])
          // A fork reads the same, its copies of the kept messages after its summary.
          const fork = yield* files.forkSession(sessionId)
          const texts = (messages: Iterable<Sessions.SessionMessage>) => Array.from(messages, (m) => m.type === "system" ? "" : m.text)
          assert.deepStrictEqual(
            texts(yield* Stream.runCollect(files.messages(fork.sessionId))),
            texts(yield* Stream.runCollect(files.messages(sessionId)))
          )
        }))
    }
  })
})
