/**
 * The scripted server driving the real `claude` binary (node_modules/.bin/claude), offline.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Scenario from "../../src/testing/Scenario.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"

const play = (scenario: Scenario.Scenario) => Scenario.run(scenario).pipe(Effect.provide(NodeServices.layer))

const ofType = (run: Scenario.Run, type: string, subtype?: string) =>
  run.messages.filter((m) => m.type === type && (subtype === undefined || m.subtype === subtype))

const toolResults = (run: Scenario.Run) =>
  ofType(run, "user").flatMap((m) => (m.message.content as Array<any>).filter((b) => b.type === "tool_result"))

/** What the CLI sent back to the model in each turn request. */
const sentToolResults = (requests: ReadonlyArray<ScriptedServer.RecordedRequest>) =>
  ScriptedServer.turnRequests(requests).map((r) =>
    MessagesRequest.decode(r.body).pipe((o) => o._tag === "Some" ? MessagesRequest.toolResults(o.value) : [])
  )

describe("real CLI against the scripted server", () => {
  it.live("runs a tool loop: Read of a file, its content to the model", () =>
    Effect.gen(function*() {
      const secret = `secret-${Math.random().toString(36).slice(2)}`
      const run = yield* play({
        name: "tool_loop",
        description: "",
        prompt: "What is in data.txt?",
        files: { "data.txt": `${secret}\nsecond line\n` },
        script: ({ cwd }) =>
          Script.make([
            Script.turn([Script.text("Reading data.txt."), Script.toolUse("Read", { file_path: `${cwd}/data.txt` })]),
            Script.turn("data.txt holds the secret.")
          ])
      })
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(ofType(run, "system", "init").length, 1)
      const toolUse = ofType(run, "assistant").flatMap((m) => m.message.content).find((b: any) => b.type === "tool_use")
      assert.deepStrictEqual(toolUse.input, { file_path: path.join(run.sandbox.cwd, "data.txt") })
      const [result] = toolResults(run)
      assert.strictEqual(result.tool_use_id, toolUse.id)
      assert.include(JSON.stringify(result.content), secret)
      const final = ofType(run, "result")
      assert.strictEqual(final.length, 1)
      assert.strictEqual(final[0].subtype, "success")
      assert.strictEqual(final[0].is_error, false)
      assert.strictEqual(final[0].result, "data.txt holds the secret.")
      assert.strictEqual(final[0].num_turns, 2)

      const turns = ScriptedServer.turnRequests(run.requests)
      assert.deepStrictEqual(turns.map((r) => [r.kind, r.turn]), [["turn", 0], ["turn", 1]])
      assert.strictEqual(turns[0].headers["x-api-key"], "sk-ant-test")
      assert.isTrue((turns[0].body as { stream: boolean }).stream)
      const sent = sentToolResults(run.requests)
      assert.deepStrictEqual(sent[0], [])
      assert.strictEqual(sent[1].length, 1)
      assert.strictEqual(sent[1][0].toolUseId, toolUse.id)
      assert.isFalse(sent[1][0].isError)
      assert.include(sent[1][0].text, secret)
    }))

  it.live("retries API errors with api_retry messages, then succeeds", () =>
    Effect.gen(function*() {
      const run = yield* play(Scenarios.errorCase)
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const retries = ofType(run, "system", "api_retry")
      assert.deepStrictEqual(retries.map((m) => [m.attempt, m.error_status]), [[1, 529], [2, 429], [3, 500]])
      const [result] = ofType(run, "result")
      assert.strictEqual(result.subtype, "success")
      assert.strictEqual(result.result, "Hello after the retries.")
      assert.deepStrictEqual(
        ScriptedServer.turnRequests(run.requests).map((r) => [r.kind, r.turn, r.attempt]),
        [["failure", 0, 0], ["failure", 0, 1], ["failure", 0, 2], ["turn", 0, 3]]
      )
    }))

  it.live("reports a Write denied by permissions to the model and in the result", () =>
    Effect.gen(function*() {
      const run = yield* play(Scenarios.createFile)
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const target = path.join(run.sandbox.cwd, "hello.py")
      const denial = `Claude requested permissions to write to ${target}, but you haven't granted it yet.`
      const [result] = toolResults(run)
      assert.isTrue(result.is_error)
      assert.strictEqual(result.content, denial)
      const [final] = ofType(run, "result")
      assert.strictEqual(final.subtype, "success")
      assert.strictEqual(final.permission_denials.length, 1)
      assert.strictEqual(final.permission_denials[0].tool_name, "Write")
      assert.strictEqual(final.permission_denials[0].tool_input.file_path, target)
      assert.isFalse(fs.existsSync(target))
      const sent = sentToolResults(run.requests)
      assert.deepStrictEqual(sent[1].map((r) => [r.isError, r.text]), [[true, denial]])
    }))

  it.live("routes a Task subagent's conversation, tagging its messages", () =>
    Effect.gen(function*() {
      const run = yield* play(Scenarios.subagent)
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const task = ofType(run, "assistant").flatMap((m) => m.message.content).find((b: any) => b.name === "Task")
      const children = run.messages.filter((m) => m.parent_tool_use_id === task.id)
      assert.isTrue(children.some((m) => m.type === "assistant" && m.message.content[0]?.name === "Bash"))
      assert.isTrue(children.some((m) => m.type === "user" && JSON.stringify(m.message.content).includes("\"2\"")))
      const turns = ScriptedServer.turnRequests(run.requests)
      assert.deepStrictEqual(
        turns.filter((r) => r.conversation === "subagent").map((r) => [r.kind, r.turn]),
        [["turn", 0], ["turn", 1]]
      )
      assert.isFalse(turns.some((r) => r.kind === "exhausted"))
      assert.strictEqual(ofType(run, "result").at(-1)?.subtype, "success")
    }))

  it.live("feeds a stream-json input session one user message per result", () =>
    Effect.gen(function*() {
      const run = yield* play(Scenarios.streamJsonSession)
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.deepStrictEqual(
        ofType(run, "result").map((m) => m.result),
        ["Nice to meet you, Ada.", "2 + 2 = 4.", "Your name is Ada."]
      )
      const turns = ScriptedServer.turnRequests(run.requests).map((r) =>
        MessagesRequest.decode(r.body).pipe((o) => o._tag === "Some" ? o.value : undefined)
      )
      assert.deepStrictEqual(turns.map((r) => r && MessagesRequest.assistantTurns(r)), [0, 1, 2])
      assert.include(turns[2] && MessagesRequest.lastUserText(turns[2]), "What is my name?")
    }))
})
