/**
 * The callback matrix: each way a callback's Effect can end (succeed, fail, die, interrupt itself, never end)
 * for each kind of callback (canUseTool, a PreToolUse hook, an MCP tool, an AskUserQuestion dialog). One
 * conversation of the scripted model per kind, one turn per outcome; what the CLI was answered is read from
 * the model's next request (the tool result the CLI wrote back) and from the sandbox's files.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hooks from "../../../src/session/Hooks.ts"
import * as McpServer from "../../../src/session/McpServer.ts"
import * as CanUseTool from "../../../src/session/CanUseTool.ts"
import type * as Session from "../../../src/session/Session.ts"
import * as MessagesRequest from "../../../src/testing/MessagesRequest.ts"
import * as Script from "../../../src/testing/Script.ts"
import * as ScriptedServer from "../../../src/testing/ScriptedServer.ts"

// A success last: once a Write is allowed, the CLI stops asking for later writes in the same directory.
export const outcomes = ["fail", "die", "interrupt", "never", "succeed"] as const
export type Outcome = typeof outcomes[number]

export const kinds = ["permission", "hook", "mcp", "dialog"] as const
export type Kind = typeof kinds[number]

const outcomeOf = (text: string): Outcome => outcomes.find((o) => text.includes(o)) ?? "succeed"

/** An Effect that ends as `outcome` says, with `value` when it succeeds. */
export const ending = <A>(outcome: Outcome, value: A): Effect.Effect<A, string> => {
  switch (outcome) {
    case "succeed":
      return Effect.succeed(value)
    case "fail":
      return Effect.fail("failed on purpose")
    case "die":
      return Effect.die(new Error("died on purpose"))
    case "interrupt":
      return Effect.interrupt
    case "never":
      return Effect.never
  }
}

// The tool call of each kind's turn; its input names the outcome.
const call = (kind: Kind, outcome: Outcome): Script.ToolUseBlock => {
  switch (kind) {
    case "permission":
      return Script.toolUse("Write", { file_path: `${outcome}.txt`, content: outcome })
    case "hook":
      return Script.toolUse("Bash", { command: `touch hook-${outcome}.txt` })
    case "mcp":
      return Script.toolUse("mcp__calls__act", { outcome })
    case "dialog":
      return Script.toolUse("AskUserQuestion", {
        questions: [{
          question: `Which ${outcome}?`,
          header: "Pick",
          options: [{ label: "A", description: "the first" }, { label: "B", description: "the second" }],
          multiSelect: false
        }]
      })
  }
}

/** The prompt of a kind's turn for one outcome; the kind's name picks its conversation. */
export const prompt = (kind: Kind, outcome: Outcome) => `${kind} row: ${outcome}`

/** One conversation per kind: a tool call under each outcome, and the model's reply once it is answered. */
export const script: Script.Script = {
  conversations: kinds.map((kind) =>
    Script.conversation(
      kind,
      MessagesRequest.firstUserTextIncludes(`${kind} row`),
      outcomes.flatMap((outcome) => [Script.turn(call(kind, outcome)), Script.turn(`${kind} ${outcome} answered`)])
    )
  ),
  sideReply: "Scripted session"
}

const deadline = "2 seconds"

/** Every callback, each ending as its input says. */
export const options: Session.Options = {
  callbackTimeout: deadline,
  dialogTimeout: deadline,
  allowedTools: ["Bash", "mcp__calls__act"],
  canUseTool: (_tool, input) => ending(outcomeOf(String(input.file_path)), CanUseTool.allow()),
  hooks: {
    PreToolUse: [{
      matcher: "Bash",
      onFailure: "block",
      hooks: [(input) => ending(outcomeOf(String((input.tool_input as { command: string }).command)), Hooks.proceed)]
    }]
  },
  mcpServers: [McpServer.make("calls", [
    McpServer.tool("act", "Acts", Schema.Struct({ outcome: Schema.String }), (input) => ending(outcomeOf(input.outcome), "acted"))
  ])],
  onAskUserQuestion: (questions) =>
    ending(outcomeOf(questions[0]!.question), { [questions[0]!.question]: "A" })
}

// What the model reads of each answer that is not a success (the CLI's tool result carries it). Of a hook's
// error answer the CLI passes on only that there was one.
const why: Record<Exclude<Outcome, "succeed">, (kind: Kind) => string> = {
  fail: (kind) => kind === "hook" ? "PreToolUse:Bash hook error" : "failed on purpose",
  die: (kind) => kind === "hook" ? "PreToolUse:Bash hook error" : "died on purpose",
  interrupt: (kind) => kind === "hook" ? "PreToolUse:Bash hook error" : "interrupted before it answered",
  never: (kind) =>
    kind === "hook"
      ? "PreToolUse:Bash hook error"
      : kind === "dialog"
      ? "no answer within 2000 ms (dialogTimeout)"
      : "did not answer within 2000 ms (callbackTimeout)"
}

/** The text of the success result that ends `messages`, if they end with one. */
export const resultText = (messages: ReadonlyArray<{ readonly _tag: string }>): string | undefined => {
  const last = messages.at(-1)
  return last?._tag === "ResultSuccess" ? (last as unknown as { readonly result: string }).result : undefined
}

/**
 * Checks one cell after its turn ended with `result`: the reply the model gave once answered, the tool result
 * the CLI sent it (an error naming why, unless the callback succeeded), and the file the tool wrote.
 */
export const check = (
  kind: Kind,
  outcome: Outcome,
  result: string | undefined,
  requests: ReadonlyArray<ScriptedServer.RecordedRequest>,
  cwd: string
) => {
  const cell = `${kind} × ${outcome}`
  assert.strictEqual(result, `${kind} ${outcome} answered`, cell)
  // The conversation's requests so far: the last one carries this turn's tool result.
  const last = ScriptedServer.turnRequests(requests).filter((r) => r.conversation === kind).at(-1)
  const decoded = last === undefined ? undefined : MessagesRequest.decode(last.body)
  assert.strictEqual(decoded?._tag, "Some", cell)
  const sent = decoded?._tag === "Some" ? decoded.value.messages.at(-1) : undefined
  const results = JSON.stringify(sent?.content ?? "")
  assert.include(results, "tool_result", cell)
  if (outcome === "succeed") {
    assert.notInclude(results, "\"is_error\":true", cell)
  } else {
    assert.include(results, "\"is_error\":true", cell)
    assert.include(results, why[outcome](kind), cell)
  }
  const file = kind === "permission" ? `${outcome}.txt` : kind === "hook" ? `hook-${outcome}.txt` : undefined
  if (file !== undefined) assert.strictEqual(fs.existsSync(path.join(cwd, file)), outcome === "succeed", cell)
}
