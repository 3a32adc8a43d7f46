/**
 * Honest retries with file checkpointing: the real CLI on the scripted model, on a test runner. A turn's first
 * attempt writes a file (Write, acceptEdits) and its CLI is killed before the turn ends; the re-delivered turn's
 * CLI rewinds the file to the interrupted attempt's prompt before the retry runs, and the retry's note says so.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Rewind from "../../src/cluster/internal/rewind.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import type * as ControlAnswer from "../../src/schema/ControlAnswer.ts"
import type * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { isAlive, waitUntil } from "../session/support/Real.ts"
import * as ToolCalls from "./support/toolCalls.ts"

// The retry's requests carry its note; they are answered apart from the conversation's first attempt.
const retried = (request: MessagesRequest.MessagesRequest) =>
  MessagesRequest.firstUserText(request).includes("rewind") &&
  JSON.stringify(request.messages).includes("This prompt was sent before")

const script = ({ cwd }: { readonly cwd: string }): Script.Script => ({
  conversations: [
    // Turns by the assistant messages before: the retry, resumed at "Rewind one.", asks for its turn 1.
    Script.conversation("retry", retried, [
      Script.turn("Not asked."),
      Script.turn(Script.toolUse("Read", { file_path: `${cwd}/notes.txt` })),
      Script.turn("Rewind two.")
    ]),
    Script.conversation("rewind", MessagesRequest.firstUserTextIncludes("rewind"), [
      Script.turn("Rewind one."),
      Script.turn(Script.toolUse("Write", { file_path: `${cwd}/notes.txt`, content: "changed" })),
      // About a minute of events: the CLI is killed meanwhile.
      Script.turn("z".repeat(600), { eventDelay: "300 millis", chunkSize: 3 })
    ]),
    Script.conversation("other", MessagesRequest.firstUserTextIncludes("other"), [
      Script.turn("Other one."),
      Script.turn("Other two.")
    ])
  ],
  sideReply: "Scripted session"
})

const env = AgentSession.layer({ enableFileCheckpointing: true, permissionMode: "acceptEdits" }).pipe(
  Layer.provideMerge(Cluster.layerTest),
  Layer.provideMerge(Scripted.layer(script, { files: { "notes.txt": "original" } }))
)

// The CLI's transcripts under the sandbox's home, read as they are on disk.
const transcripts = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? transcripts(path.join(dir, entry.name))
      : entry.name.endsWith(".jsonl")
      ? [fs.readFileSync(path.join(dir, entry.name), "utf8")]
      : []
  )

const turn = (entityId: string, turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client(entityId).Turn({ turnId, prompt })))

const resultText = (events: ReadonlyArray<AgentSession.TurnEvent>) => {
  const last = events.at(-1)
  return last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : `no success result: ${last?._tag}`
}

const requests = Effect.flatMap(Effect.service(ScriptedServer.ScriptedServer), (server) =>
  Effect.map(server.requests, ScriptedServer.turnRequests))

describe("AgentSession retries with file checkpointing", () => {
  it.live("a retry rewinds the files its interrupted attempt wrote, then says so", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const notes = path.join(sandbox.cwd, "notes.txt")
      assert.strictEqual(resultText(yield* turn("w", "w-1", "rewind: first")), "Rewind one.")

      // The second turn writes the file, then its CLI is killed while the model still answers.
      const cut = yield* Effect.forkChild(Effect.flip(turn("w", "w-2", "rewind: second")))
      const written = Effect.map(requests, (all) => all.some((r) => r.conversation === "rewind" && r.turn === 2))
      yield* waitUntil(Effect.provide(written, yield* Effect.context<ScriptedServer.ScriptedServer>())).pipe(Effect.timeout("60 seconds"))
      assert.strictEqual(fs.readFileSync(notes, "utf8"), "changed")
      // The CLI has kept the file's backup in its transcript (it writes the record just after the write).
      yield* waitUntil(Effect.sync(() => transcripts(sandbox.home).some((text) => text.includes(`"type":"file-history-delta"`))))
        .pipe(Effect.timeout("30 seconds"))
      const pid = (yield* Effect.flatMap(AgentSession.client, (client) => client("w").Info())).pid!
      process.kill(pid, "SIGKILL")
      yield* waitUntil(Effect.sync(() => !isAlive(pid))).pipe(Effect.timeout("20 seconds"))
      const failed = yield* Fiber.join(cut)
      assert.strictEqual(failed._tag === "AgentSessionError" ? failed.reason._tag : failed._tag, "SessionFailed")
      assert.strictEqual(fs.readFileSync(notes, "utf8"), "changed")

      // Re-delivered: the retry's Read (its first tool) finds the file as it was before the cut attempt.
      const again = yield* turn("w", "w-2", "rewind: second")
      assert.deepStrictEqual(again[0], new AgentSession.TurnStarted({ turnId: "w-2", attempt: 2 }))
      assert.strictEqual(resultText(again), "Rewind two.")
      const retry = (yield* requests).filter((r) => r.conversation === "retry")
      assert.deepStrictEqual(retry.map((r) => r.turn), [1, 2])
      const read = MessagesRequest.toolResults(retry[1].body as MessagesRequest.MessagesRequest).at(-1)!
      assert.include(read.text, "original")
      assert.notInclude(read.text, "changed")
      const note = JSON.stringify(retry[0].body)
      assert.include(note, "were rewound to their state before it")
      assert.include(note, "notes.txt")
      assert.include(note, "but for the files rewound")
      assert.include(note, `Write {\\"file_path\\":\\"${notes}\\",\\"content\\":\\"changed\\"}`)
      assert.strictEqual(fs.readFileSync(notes, "utf8"), "original")
    }).pipe(Effect.provide(env)), 180_000)

  it.live("a rewind that fails is told in the retry's note", () =>
    Effect.gen(function*() {
      assert.strictEqual(resultText(yield* turn("f", "f-1", "other: first")), "Other one.")
      // A start that never finished, its prompt named by a uuid the conversation never had.
      const log = yield* TurnLog.TurnLog
      yield* log.begin(AgentSession.logKey("AgentSession", "f"), "f-2", "other: second")
      yield* log.sent(AgentSession.logKey("AgentSession", "f"), "f-2", "00000000-0000-4000-8000-000000000000")
      const again = yield* turn("f", "f-2", "other: second")
      assert.deepStrictEqual(again[0], new AgentSession.TurnStarted({ turnId: "f-2", attempt: 2 }))
      assert.strictEqual(resultText(again), "Other two.")
      const last = (yield* requests).filter((r) => r.conversation === "other").at(-1)!
      assert.include(JSON.stringify(last.body), "Rewinding its files failed (")
    }).pipe(Effect.provide(env)), 120_000)
})

// A cut attempt that wrote two files, as its progress was logged.
const wrote = ToolCalls.calling(["/w/a.txt", "b.txt"].map((file) => ({ name: "Write", input: { file_path: file, content: "x" } })))

// A session whose `rewindFiles` answers the dry run and the rewind as given, and records what it was asked.
const answering = (dry: ControlAnswer.RewindFilesResult, done: ControlAnswer.RewindFilesResult) => {
  const asked: Array<string> = []
  const session = {
    rewindFiles: (id: string, options?: { readonly dryRun?: boolean | undefined }) =>
      Effect.sync(() => {
        asked.push(`${options?.dryRun === true ? "dry " : ""}${id}`)
        return options?.dryRun === true ? dry : done
      })
  } as unknown as Session.Session
  return { asked, session }
}

describe("Rewind.files", () => {
  it.effect("names what no checkpoint covers, beside what was rewound", () =>
    Effect.gen(function*() {
      const { asked, session } = answering({ canRewind: true, filesChanged: ["/w/a.txt"] }, { canRewind: true })
      const files = yield* Rewind.files(session, "p1", wrote)
      assert.deepStrictEqual(asked, ["dry p1", "p1"])
      assert.isTrue(files.rewound)
      assert.include(files.note, "rewound to their state before it: /w/a.txt.")
      assert.include(files.note, "Its checkpoints do not cover b.txt")
    }))

  it.effect("a refusal, a failed request or no prompt id rewinds nothing and says why", () =>
    Effect.gen(function*() {
      const refused = answering({ canRewind: false, error: "No file checkpoint found for this message." }, { canRewind: true })
      const files = yield* Rewind.files(refused.session, "p1", wrote)
      assert.deepStrictEqual(refused.asked, ["dry p1"])
      assert.deepStrictEqual(files, { note: "Rewinding its files failed (No file checkpoint found for this message.): they are as it left them.", rewound: false })
      const failing = {
        rewindFiles: () => Effect.fail(SessionError.make(new SessionError.SessionClosed({ operation: "rewind", exitCode: 1, signal: null, stderrTail: "" })))
      } as unknown as Session.Session
      const closed = yield* Rewind.files(failing, "p1", wrote)
      assert.isFalse(closed.rewound)
      assert.match(closed.note, /^Rewinding its files failed \(.+\): they are as it left them\.$/)
      const unnamed = yield* Rewind.files(refused.session, undefined, wrote)
      assert.isFalse(unnamed.rewound)
      assert.include(unnamed.note, "no prompt id")
    }))
})
