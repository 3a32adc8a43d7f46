/**
 * The display's fold without a terminal: where standard error goes relative to the spinner, what a failing
 * input leaves on screen, and the headers that attribute subagent output to its Task.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Display from "../../src/cli/Display.ts"
import * as Pretty from "../../src/cli/Pretty.ts"
import * as Screen from "../../src/cli/Screen.ts"
import * as Style from "../../src/cli/Style.ts"
import * as ToolLine from "../../src/cli/ToolLine.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Message from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import * as Run from "./support/Run.ts"
import * as path from "node:path"

const clear = "\r\x1b[2K"

const demo = Run.records(path.join(Run.root, "fixtures", "recorded", "demo.jsonl"))

// A display on a terminal that has shown the init line: the spinner is up, waiting for the model.
const waiting = () => {
  const state = Display.initial({ format: "pretty" }, { style: Style.plain, animate: true, now: 0 })
  Display.step(state, { _tag: "Record", record: demo[0]!, now: 0 })
  assert.isTrue(state.screen.spinnerShown)
  return state
}

const badLine = Decode.decodeAll("Warning: junk\n")[0]!

describe("Screen: Pause and Resume", () => {
  it("free the spinner's line before other output and redraw it after", () => {
    const shown = Screen.step(Screen.step(Screen.initial({ animate: true, now: 0 }), { _tag: "Status", status: "Waiting", now: 0 }, Style.plain)[0], { _tag: "Tick", now: 1500 }, Style.plain)[0]
    const [paused, erase] = Screen.step(shown, { _tag: "Pause" }, Style.plain)
    assert.strictEqual(erase, clear)
    const [, redraw] = Screen.step(paused, { _tag: "Resume", now: 2000 }, Style.plain)
    assert.strictEqual(redraw, `${clear}${Screen.frames[1]} Waiting (2.0s)`)
  })

  it("end streamed text with a newline first, on a terminal only", () => {
    const midText = (animate: boolean) =>
      Screen.step(Screen.initial({ animate, now: 0 }), { _tag: "Write", text: "Hel" }, Style.plain)[0]
    assert.strictEqual(Screen.step(midText(true), { _tag: "Pause" }, Style.plain)[1], "\n")
    assert.strictEqual(Screen.step(midText(false), { _tag: "Pause" }, Style.plain)[1], "")
  })
})

describe("Display", () => {
  // The spinner is erased, the report goes to stderr, then the spinner is redrawn.
  it("a bad line goes around the spinner", () => {
    const [, writes] = Display.step(waiting(), { _tag: "Record", record: badLine, now: 700 })
    const texts = writes.filter((w) => w._tag === "Stdout" ? w.text !== "" : true)
    assert.deepStrictEqual(texts.map((w) => w._tag), ["Stdout", "Stderr", "Stdout"])
    assert.deepStrictEqual(texts[0], { _tag: "Stdout", text: clear })
    assert.deepStrictEqual(texts[1], { _tag: "Stderr", text: `✗ ${Display.failureText(badLine as Decode.DecodeError)}\n` })
    assert.match((texts[2] as { text: string }).text, /^\r\x1b\[2K. Waiting for the model… \(0\.7s\)$/)
  })

  it("the input failing: the spinner erased before the error is shown", () => {
    const cause = Cause.fail("the CLI died")
    const [state, writes] = Display.step(waiting(), { _tag: "Failed", cause })
    assert.deepStrictEqual(writes, [{ _tag: "Stdout", text: clear }, { _tag: "Stop", cause }])
    assert.isFalse(state.screen.spinnerShown)
  })

  it("interrupted (a signal): the spinner erased, its line left clean", () => {
    const state = waiting()
    assert.strictEqual(Display.interrupted(state), clear)
    assert.isFalse(state.screen.spinnerShown)
  })

  it("strict: the first bad line stops the display with the spinner erased", () => {
    const strict = Display.initial({ format: "pretty", strict: true }, { style: Style.plain, animate: true, now: 0 })
    Display.step(strict, { _tag: "Record", record: demo[0]!, now: 0 })
    const [, writes] = Display.step(strict, { _tag: "Record", record: badLine, now: 10 })
    assert.deepStrictEqual(writes[0], { _tag: "Stdout", text: clear })
    assert.strictEqual(writes[1]!._tag, "Stop")
  })

  it("finish: the outcome last, after the closing text", () => {
    const state = Display.initial({ format: "json" }, { style: Style.plain, animate: false, now: 0 })
    for (const record of demo) Display.step(state, { _tag: "Record", record, now: 0 })
    const writes = Display.finish(state)
    const done = writes.at(-1)!
    assert.strictEqual(done._tag, "Done")
    const outcome = (done as { outcome: Display.Outcome }).outcome
    assert.strictEqual(outcome.lines, demo.length)
    const json = writes.find((w) => w._tag === "Stdout" && w.text.startsWith("{")) as { text: string }
    assert.deepStrictEqual(JSON.parse(json.text), JSON.parse(JSON.stringify(Display.summaryJson(outcome))))
  })
})

// Two Tasks running in parallel, their subagents' output interleaved with each other's and the main session's.
const decode = (json: unknown): Message.Message => {
  const result = Message.decodeMessage(json)
  if (result._tag === "Failure") throw result.failure
  return result.success
}
const usage = { input_tokens: 1, output_tokens: 1 }
const assistant = (parent: string | null, id: string, content: Array<unknown>) =>
  decode({ type: "assistant", session_id: "s", parent_tool_use_id: parent, message: { id, role: "assistant", model: "m", content, usage } })
const user = (parent: string | null, content: Array<unknown>) =>
  decode({ type: "user", session_id: "s", parent_tool_use_id: parent, message: { role: "user", content } })
const task = (id: string, description: string) => ({ type: "tool_use", id, name: "Task", input: { description, prompt: "p" } })
const bash = (id: string, command: string) => ({ type: "tool_use", id, name: "Bash", input: { command } })
const result = (id: string, text: string) => ({ type: "tool_result", tool_use_id: id, content: text })

describe("Pretty: subagent output named after its Task", () => {
  // None right under its Task or its own output.
  it("a header where someone else's output came between", () => {
    const messages = [
      assistant(null, "m1", [task("A", "Count files"), task("B", "Find TODOs")]),
      assistant("A", "a1", [bash("a-ls", "ls | wc -l")]),
      assistant("B", "b1", [bash("b-grep", "grep -r TODO .")]),
      user("A", [result("a-ls", "2")]),
      user("A", [{ type: "text", text: "ignored: user text" }]),
      assistant("A", "a2", [{ type: "text", text: "There are 2 files." }]),
      user("B", [result("b-grep", "none")]),
      user(null, [result("A", "2 files"), result("B", "no TODOs")])
    ]
    const out = Pretty.renderAll(Item.fromIterable(messages), Style.plain)
    assert.strictEqual(
      out,
      [
        "● Task(Count files)",
        "",
        "● Task(Find TODOs)",
        "",
        "  ↳ Task(Count files)",
        "  ● Bash(ls | wc -l)",
        "",
        "  ↳ Task(Find TODOs)",
        "  ● Bash(grep -r TODO .)",
        "",
        "  ↳ Task(Count files)",
        "    ⎿  Bash(ls | wc -l): 2",
        "",
        "  There are 2 files.",
        "",
        "  ↳ Task(Find TODOs)",
        "    ⎿  Bash(grep -r TODO .): none",
        "  ⎿  Task(Count files): 2 files",
        "  ⎿  Task(Find TODOs): no TODOs",
        ""
      ].join("\n")
    )
  })

  it("none for a Task whose subagent runs right under it", () => {
    const messages = [
      assistant(null, "m1", [task("A", "Count files")]),
      assistant("A", "a1", [bash("a-ls", "ls | wc -l")]),
      user("A", [result("a-ls", "2")]),
      user(null, [result("A", "2 files")])
    ]
    assert.notInclude(Pretty.renderAll(Item.fromIterable(messages), Style.plain), "↳")
  })
})

describe("Pretty: tool lines and the closing line", () => {
  const long = "echo " + "0123456789".repeat(30)
  const at = (width: number | undefined, parent: string | null = null) => {
    const messages = [
      ...(parent === null ? [] : [assistant(null, "m0", [task(parent, "Run it")])]),
      assistant(parent, "m1", [bash("b1", long)])
    ]
    let state: Pretty.State = { ...Pretty.initial, width }
    let out = ""
    for (const item of Item.fromIterable(messages)) {
      const [next, output] = Pretty.render(state, item, Style.plain)
      state = next
      out += output.text
    }
    return out.split("\n").find((l) => l.includes("Bash("))!
  }

  // Off a terminal the argument is cut at a fixed length.
  it("a tool line fills the terminal's width, never more", () => {
    assert.strictEqual(at(undefined), `● Bash(${long.slice(0, ToolLine.maxArgument - 1)}…)`)
    for (const width of [60, 120, 200]) {
      assert.strictEqual(at(width).length, width, `${width} columns`)
      assert.isTrue(at(width).endsWith("…)"))
      // A subagent's call is indented: its argument is shorter by as much.
      assert.strictEqual(at(width, "T").length, width, `${width} columns, in a subagent`)
    }
    assert.strictEqual(at(400), `● Bash(${long})`)
    assert.strictEqual(at(10), `● Bash(${long.slice(0, Pretty.minArgument - 1)}…)`)
  })

  // Totals that start over are a new start.
  it("a later run shows its own API time and cost, and the session's", () => {
    const run = (api: number, cost: number) =>
      decode({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "ok",
        session_id: "s",
        duration_ms: 100,
        duration_api_ms: api,
        num_turns: 1,
        total_cost_usd: cost,
        usage
      })
    const lines = Pretty.renderAll(Item.fromIterable([run(40, 0.002), run(70, 0.005), run(30, 0.001)]), Style.plain)
      .split("\n").filter((l) => l !== "")
    assert.deepStrictEqual(lines, [
      "Session complete: 1 turn, 100ms total (40ms API), $0.0020",
      "Session complete: 1 turn, 100ms total (30ms API), $0.0030, session $0.0050",
      "Session complete: 1 turn, 100ms total (30ms API), $0.0010"
    ])
  })

  it("an error's reason is not repeated after text that said it", () => {
    const errorResult = (text: string) =>
      decode({
        type: "result",
        subtype: "success",
        is_error: true,
        result: text,
        session_id: "s",
        duration_ms: 10,
        duration_api_ms: 0,
        num_turns: 1,
        total_cost_usd: 0,
        usage
      }) as Extract<Message.Message, { readonly _tag: "ResultSuccess" }>
    const failed = errorResult("Prompt is too long")
    assert.strictEqual(
      Pretty.closingLine(failed, Style.plain, { shown: "Prompt is too long\n" }),
      "Session failed (is_error): 1 turn, 10ms total (0ms API), $0.00"
    )
    assert.strictEqual(
      Pretty.closingLine(failed, Style.plain, { shown: "Something else" }),
      "Session failed (is_error): Prompt is too long — 1 turn, 10ms total (0ms API), $0.00"
    )
    const rendered = (before: Array<Message.Message>) =>
      Pretty.renderAll(Item.fromIterable([...before, failed]), Style.plain).trimEnd().split("\n").at(-1)
    assert.strictEqual(
      rendered([assistant(null, "m1", [{ type: "text", text: "Prompt is too long" }])]),
      Pretty.closingLine(failed, Style.plain, { shown: "Prompt is too long" })
    )
    // Text with a tool call after it, or a subagent's, is not what the closing line follows.
    assert.include(rendered([assistant(null, "m1", [{ type: "text", text: "Prompt is too long" }, bash("b1", "ls")])]), "Prompt is too long —")
    assert.include(rendered([assistant(null, "m0", [task("T", "t")]), assistant("T", "m1", [{ type: "text", text: "Prompt is too long" }])]), "Prompt is too long —")
  })
})
