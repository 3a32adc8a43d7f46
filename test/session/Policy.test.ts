/**
 * Permission policies in the filter language: their text, the warnings they are read with, and their
 * decisions, called directly and by the real CLI on the scripted model.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Filter from "../../src/filter/Filter.ts"
import * as Item from "../../src/filter/Item.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Policy from "../../src/session/Policy.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, setup, toolResults } from "./support/Real.ts"
import * as fs from "node:fs"
import * as path from "node:path"

const text = [
  "# what the agent may do in this repository",
  "allow tool:Read & path:src/**",
  "allow tool:Bash & command:\"git status*\"",
  "deny  tool:Bash & command:\"rm *\"   \"no deleting\"",
  "default ask"
].join("\n")

const parsed = (policy: string) => Effect.runSync(Policy.parse(policy))
const parseError = (policy: string) => Effect.runSync(Effect.flip(Policy.parse(policy)))
const reasons = (policy: Policy.Policy) => policy.warnings.map((w) => `${w.reason}:${w.rule ?? "-"}`)
const context: CanUseTool.Context = { toolUseId: "toolu_1", suggestions: [], blockedPath: undefined, decisionReason: undefined }

describe("policy text", () => {
  it("reads rules, reasons and the default", () => {
    const policy = parsed(text)
    assert.deepStrictEqual(policy.rules.map(Policy.describeRule), [
      "allow tool:Read & path:src/**",
      "allow tool:Bash & command:\"git status*\"",
      "deny tool:Bash & command:\"rm *\" \"no deleting\""
    ])
    assert.deepStrictEqual(policy.rules.map((r) => r.line), [2, 3, 4])
    assert.strictEqual(policy.default, "ask")
    assert.deepStrictEqual(policy.warnings, [])
    // A quoted value is the filter's, not a reason; the default defaults to ask.
    const odd = parsed("deny tool:\"odd name\"")
    assert.strictEqual(odd.rules[0]!.reason, undefined)
    assert.strictEqual(Filter.describe(odd.rules[0]!.filter), "tool:\"odd name\"")
    assert.strictEqual(odd.default, "ask")
  })

  it("names the line and what is wrong", () => {
    const unknown = parseError("allow tool:Read\npermit tool:Bash")
    assert.strictEqual(unknown.reason._tag, "UnknownAction")
    assert.strictEqual(unknown.line, 2)
    assert.include(unknown.message, "policy line 2: expected allow, deny, ask or default, found \"permit\"")
    const filter = parseError("deny tool:Bash & command")
    assert.strictEqual(filter.reason._tag, "InvalidFilter")
    assert.strictEqual(filter.reason._tag === "InvalidFilter" && filter.reason.filter.reason._tag, "MissingValue")
    assert.strictEqual(parseError("ask").reason._tag, "MissingFilter")
    assert.strictEqual(parseError("default deny\ndefault allow").reason._tag, "DuplicateDefault")
    assert.strictEqual(parseError("default maybe").reason._tag, "UnknownAction")
    assert.strictEqual(parseError("deny tool \"bad \\q\"").reason._tag, "InvalidReason")
  })
})

describe("policy warnings", () => {
  it("a policy that allows everything", () => {
    assert.deepStrictEqual(reasons(parsed("allow tool:Read\ndefault allow")), ["AllowsEverything:-"])
    assert.deepStrictEqual(reasons(parsed("allow tool\ndeny tool:Bash")), ["Shadowed:1", "AllowsEverything:0"])
    assert.deepStrictEqual(reasons(parsed("allow all")), ["AllowsEverything:0"])
    // A deny before the catch-all, or a default that is not allow: no warning.
    assert.deepStrictEqual(reasons(parsed("deny command:rm*\nallow tool")), [])
    assert.deepStrictEqual(reasons(parsed("allow tool:Read")), [])
    assert.deepStrictEqual(
      reasons(Policy.make([Policy.allow(Filter.toolUse("Read"))], { default: "allow" })),
      ["AllowsEverything:-"]
    )
  })

  it("rules that can never decide", () => {
    const policy = parsed([
      "deny text",
      "deny tool:Read & command:*",
      "deny tool:Bash & error",
      "allow tool:Read",
      "ask tool:Read",
      "deny tool:Rea* & url:*",
      "ask none"
    ].join("\n"))
    assert.deepStrictEqual(reasons(policy), [
      "NeverMatches:0",
      "NeverMatches:1",
      "NotInRequest:2",
      "Shadowed:4",
      "NeverMatches:5",
      "NeverMatches:6"
    ])
    assert.include(policy.warnings[1]!.message, "rule 2 (deny tool:Read & command:*): its parts ask for different tools")
    assert.strictEqual(policy.warnings[1]!.line, 2)
    assert.deepStrictEqual(reasons(parsed("allow tool:Read & path:src/**\ndeny tool:Rea? & path:*")), [])
  })
})

describe("policy decisions", () => {
  it.effect("first match wins; ask defers to the callback, or denies", () =>
    Effect.gen(function*() {
      const policy = parsed(text)
      const plain = Policy.canUseTool(policy)
      const decide = (tool: string, input: Record<string, unknown>) => plain(tool, input, context)
      assert.deepStrictEqual(yield* decide("Read", { file_path: "/repo/src/a.ts" }), CanUseTool.allow())
      assert.deepStrictEqual(yield* decide("Bash", { command: "rm -rf /" }), CanUseTool.deny("no deleting"))
      const asked = yield* decide("Bash", { command: "ls" })
      assert.strictEqual(asked._tag, "Deny")
      assert.include((asked as CanUseTool.Deny).message, "needs approval (the policy's default asks)")
      const withAsk = Policy.canUseTool(policy, { ask: (tool) => Effect.succeed(CanUseTool.deny(`asked about ${tool}`)) })
      assert.deepStrictEqual(yield* withAsk("Read", { file_path: "/etc/passwd" }, context), CanUseTool.deny("asked about Read"))
      // The same callback serves sessions and entities.
      const entityOptions: AgentSession.Options = { canUseTool: withAsk }
      const sessionOptions: Session.Options = { canUseTool: plain }
      assert.strictEqual(entityOptions.canUseTool, withAsk)
      assert.strictEqual(sessionOptions.canUseTool, plain)
      const failing = Policy.canUseTool(policy, { ask: () => Effect.fail("offline") })
      const failed = yield* failing("Write", { file_path: "x" }, context)
      assert.include((failed as CanUseTool.Deny).message, "ask callback of the permission policy failed: offline")
    }))
})

describe("policy decision stream", () => {
  it.effect("replays the decisions made, goes on with new ones, ends with the scope", () =>
    Effect.gen(function*() {
      const policy = parsed(text)
      const [early, all] = yield* Effect.scoped(Effect.gen(function*() {
        const tracked = yield* Policy.track(policy)
        yield* tracked.canUseTool("Read", { file_path: "/r/src/a.ts" }, context)
        // Subscribed after the first decision: it is replayed.
        const reader = yield* Effect.forkDetach(Stream.runCollect(tracked.decisions))
        yield* tracked.canUseTool("Bash", { command: "rm x" }, context)
        return [yield* tracked.decided, reader] as const
      }))
      const streamed = yield* Fiber.join(all)
      assert.deepStrictEqual(streamed.map((d) => [d.toolName, d.ruleIndex, d.action, d.toolUseId]), [
        ["Read", 0, "allow", "toolu_1"],
        ["Bash", 2, "deny", "toolu_1"]
      ])
      assert.deepStrictEqual(streamed, early)
    }))
})

layer(NodeServices.layer, { excludeTestServices: true })("policy decisions (real CLI)", (it) => {
  it.effect("allow, deny and ask by rule; denied selects the denied calls", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Read", { file_path: "src/a.txt" })),
        Script.turn(Script.toolUse("Bash", { command: "git status --short" })),
        Script.turn(Script.toolUse("Bash", { command: "rm -f keep.txt" })),
        Script.turn(Script.toolUse("Bash", { command: "touch asked.txt" })),
        Script.turn(Script.toolUse("Write", { file_path: "new.txt", content: "x" })),
        Script.turn("done")
      ])
      fs.mkdirSync(path.join(sandbox.cwd, "src"))
      fs.writeFileSync(path.join(sandbox.cwd, "src", "a.txt"), "hello")
      fs.writeFileSync(path.join(sandbox.cwd, "keep.txt"), "keep")
      const policy = yield* Policy.parse(text)
      const asked: Array<string> = []
      const tracked = yield* Policy.track(policy, {
        ask: (tool) =>
          Effect.sync(() => {
            asked.push(tool)
            return tool === "Write" ? CanUseTool.allow() : CanUseTool.deny("the user says no")
          })
      })
      const session = yield* Session.make({
        ...base,
        settings: JSON.stringify({ permissions: { ask: ["Read", "Bash"] } }),
        canUseTool: tracked.canUseTool
      })
      const messages = yield* collect(session.turn("work"))
      const decisions = yield* tracked.decided
      assert.deepStrictEqual(
        decisions.map((d) => [d.toolName, d.ruleIndex ?? "default", d.action, d.decision._tag]),
        [
          ["Read", 0, "allow", "Allow"],
          ["Bash", 1, "allow", "Allow"],
          ["Bash", 2, "deny", "Deny"],
          ["Bash", "default", "ask", "Deny"],
          ["Write", "default", "ask", "Allow"]
        ]
      )
      assert.deepStrictEqual(decisions.map((d) => d.rule === undefined ? "default" : Policy.describeRule(d.rule)), [
        "allow tool:Read & path:src/**",
        "allow tool:Bash & command:\"git status*\"",
        "deny tool:Bash & command:\"rm *\" \"no deleting\"",
        "default",
        "default"
      ])
      assert.deepStrictEqual(asked, ["Bash", "Write"])
      assert.strictEqual(decisions[2]!.rule?.reason, "no deleting")
      // What the tools did, seen from outside.
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "keep.txt")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "asked.txt")))
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "new.txt")))
      const results = toolResults(messages)
      assert.strictEqual(results.length, 5)
      assert.include(results[0]!.text, "hello")
      assert.include(results[2]!.text, "no deleting")
      assert.include(results[3]!.text, "the user says no")
      // `denied` over the recording selects exactly the calls the policy denied.
      const deniedCalls = Item.fromIterable(messages).filter(Filter.permissionDenied)
        .flatMap((item) => item.kind === "tool_result" ? [item.toolUseId] : [])
      const deniedByPolicy = decisions.filter((d) => d.decision._tag === "Deny").map((d) => d.toolUseId)
      assert.strictEqual(deniedByPolicy.length, 2)
      assert.deepStrictEqual(deniedCalls, deniedByPolicy)
      // And the calls themselves, each judged by its result.
      const deniedUses = yield* Stream.fromIterable(messages).pipe(
        Item.select(Filter.and(Filter.toolUse(), Filter.permissionDenied)),
        Stream.map((item) => item.id),
        Stream.runCollect
      )
      assert.deepStrictEqual(deniedUses, deniedByPolicy)
      // The stream replays the decisions made before it was read.
      const streamed = yield* tracked.decisions.pipe(Stream.take(5), Stream.runCollect)
      assert.deepStrictEqual(streamed, decisions)
    }), 120_000)
})
