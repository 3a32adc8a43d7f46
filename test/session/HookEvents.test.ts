/**
 * Hooks for every event the SDK declares, registered at once against the real CLI on the scripted model: the
 * events Claude Code 2.1.332 fires in stream-json mode for tool calls, a failing command, a subagent, a
 * project command (and the shell command its text holds), a compaction, a model switch, a nested CLAUDE.md
 * and `/clear` each reach their hook with their typed input; typed outputs take effect.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as HookEvents from "../../src/schema/HookEvents.ts"
import type * as Hooks from "../../src/session/Hooks.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, setup, turnBodies } from "./support/Real.ts"

// What this scenario makes 2.1.332 fire, in stream-json mode with hooks from `initialize`.
const fired = [
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolBatch",
  "PostToolUseFailure",
  "SubagentStart",
  "SubagentStop",
  "MessageDisplay",
  "Stop",
  "UserPromptExpansion",
  "PreSkillShellCommand",
  "PreCompact",
  "SessionStart",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "InstructionsLoaded"
] as const

layer(NodeServices.layer, { excludeTestServices: true })("hook events (real CLI)", (it) => {
  it.effect("each event the CLI fires reaches its hook with its typed input", () =>
    Effect.gen(function*() {
      const { base } = yield* setup(Script.make([
        Script.turn(Script.toolUse("Write", { file_path: "a.txt", content: "x" })),
        Script.turn(Script.toolUse("Read", { file_path: "nested/notes.txt" })),
        Script.turn(Script.toolUse("Bash", { command: "exit 3" })),
        Script.turn(Script.toolUse("Agent", { description: "sub", prompt: "Do the sub thing", subagent_type: "general-purpose" })),
        Script.turn("done"),
        Script.turn("greeted"),
        Script.turn("compacted summary"),
        Script.turn("after the switch")
      ], {
        subagents: [Script.conversation("sub", MessagesRequest.firstUserTextIncludes("Do the sub thing"), [Script.turn("sub done")])]
      }))
      // Loaded when a tool first touches its directory, after the hooks are registered (the project's own
      // CLAUDE.md may load before them).
      fs.mkdirSync(path.join(base.cwd!, "nested"))
      fs.writeFileSync(path.join(base.cwd!, "nested", "CLAUDE.md"), "Be brief here.\n")
      fs.writeFileSync(path.join(base.cwd!, "nested", "notes.txt"), "notes\n")
      fs.mkdirSync(path.join(base.cwd!, ".claude", "commands"), { recursive: true })
      fs.writeFileSync(path.join(base.cwd!, ".claude", "commands", "greet.md"), "---\ndescription: Greets\nallowed-tools: Bash(echo:*)\n---\nSay hello to $ARGUMENTS, then: !`echo from-the-shell`\n")
      const inputs = new Map<string, Array<HookEvents.Input>>()
      const record = <E extends HookEvents.HookEvent>(event: E): Hooks.HookCallback<never, E> => (input) =>
        Effect.sync(() => {
          inputs.set(event, [...(inputs.get(event) ?? []), input as HookEvents.Input])
          return {}
        })
      const hooks: Hooks.Hooks = Object.fromEntries(HookEvents.events.map((e) => [e, [{ hooks: [record(e)] }]]))
      const session = yield* Session.make({
        ...base,
        settingSources: ["project"],
        hooks,
        canUseTool: () => Effect.succeed(CanUseTool.allow())
      })
      yield* collect(session.turn("do things"))
      yield* collect(session.turn("/greet bob"))
      yield* collect(session.turn("/compact"))
      yield* session.setModel("haiku")
      yield* collect(session.turn("more"))
      yield* session.close

      assert.deepStrictEqual(fired.filter((event) => !inputs.has(event)), [])
      for (const [event, seen] of inputs) {
        assert.deepStrictEqual([...new Set(seen.map((i) => i.hook_event_name))], [event])
        for (const input of seen) assert.isString(input.session_id)
      }
      const first = <E extends HookEvents.HookEvent>(event: E) => inputs.get(event)![0] as HookEvents.Input<E>
      assert.strictEqual(first("PreToolUse").tool_name, "Write")
      assert.strictEqual(first("PermissionRequest").tool_name, "Write")
      assert.include(first("PostToolUseFailure").error, "3")
      assert.strictEqual(first("SubagentStart").agent_type, "general-purpose")
      assert.strictEqual(first("UserPromptExpansion").command_name, "greet")
      const shell = first("PreSkillShellCommand")
      assert.deepStrictEqual(
        [shell.tool_name, shell.tool_input.command, shell.command_name, shell.invoked_by],
        ["Bash", "echo from-the-shell", "greet", "user"]
      )
      assert.strictEqual(first("PreCompact").trigger, "manual")
      assert.strictEqual(first("PostCompact").compact_summary.length > 0, true)
      assert.strictEqual(first("SessionStart").source, "compact")
      assert.include(first("PreModelSwitch").to_model, "haiku")
      const loaded = inputs.get("InstructionsLoaded")!.map((i) => i as HookEvents.Input<"InstructionsLoaded">)
      assert.include(loaded.map((i) => [i.file_path, i.load_reason].join(" ")), `${path.join(base.cwd!, "nested", "CLAUDE.md")} nested_traversal`)
    }), 120_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("session hook events (real CLI)", (it) => {
  // Hooks from `initialize` are registered after the CLI's start: its SessionStart has fired by then.
  it.effect("SessionEnd and SessionStart fire on /clear, neither at start nor at close", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const seen: Array<string> = []
      const session = yield* Session.make({
        ...base,
        hooks: {
          SessionStart: [{ hooks: [(input) => Effect.sync(() => (seen.push(`start ${input.source}`), {}))] }],
          SessionEnd: [{ hooks: [(input) => Effect.sync(() => (seen.push(`end ${input.reason}`), {}))] }]
        }
      })
      yield* collect(session.turn("hello"))
      assert.deepStrictEqual(seen, [])
      yield* collect(session.turn("/clear"))
      assert.deepStrictEqual(seen, ["end clear", "start clear"])
      yield* session.close
      assert.deepStrictEqual(seen, ["end clear", "start clear"])
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("typed hook outputs (real CLI)", (it) => {
  it.effect("PreSkillShellCommand's deny keeps a command's shell command from running", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("touched"), Script.turn("not touched")])
      fs.mkdirSync(path.join(base.cwd!, ".claude", "commands"), { recursive: true })
      fs.writeFileSync(
        path.join(base.cwd!, ".claude", "commands", "mark.md"),
        "---\ndescription: Marks\nallowed-tools: Bash(touch:*)\n---\nMarked: !`touch $ARGUMENTS`\n"
      )
      let denied = true
      const deny: Hooks.HookCallback<never, "PreSkillShellCommand"> = () =>
        Effect.succeed(
          denied ? { hookSpecificOutput: { hookEventName: "PreSkillShellCommand", permissionDecision: "deny", permissionDecisionReason: "no" } } : {}
        )
      const session = yield* Session.make({ ...base, settingSources: ["project"], hooks: { PreSkillShellCommand: [{ hooks: [deny] }] } })
      // Allowed, the command runs: the check below can fail.
      denied = false
      yield* collect(session.turn("/mark allowed.txt"))
      assert.isTrue(fs.existsSync(path.join(base.cwd!, "allowed.txt")))
      denied = true
      yield* collect(session.turn("/mark denied.txt"))
      assert.isFalse(fs.existsSync(path.join(base.cwd!, "denied.txt")))
    }), 60_000)

  it.effect("PermissionRequest updates a Write; PreToolUse adds context", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "out.txt", content: "from the model" })),
        Script.turn("done")
      ])
      const permission: Hooks.HookCallback<never, "PermissionRequest"> = (input) =>
        Effect.succeed({
          hookSpecificOutput: {
            hookEventName: "PermissionRequest",
            decision: {
              behavior: "allow",
              updatedInput: { ...(input.tool_input as object), content: "from the hook" }
            }
          }
        })
      const context: Hooks.HookCallback<never, "PreToolUse"> = (input) =>
        Effect.succeed({
          hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: `CONTEXT-FOR-${input.tool_name}` }
        })
      const session = yield* Session.make({
        ...base,
        hooks: { PermissionRequest: [{ hooks: [permission] }], PreToolUse: [{ matcher: "Write", hooks: [context] }] }
      })
      yield* collect(session.turn("write it"))
      assert.strictEqual(fs.readFileSync(path.join(base.cwd!, "out.txt"), "utf8"), "from the hook")
      const [, next] = yield* turnBodies(server)
      assert.include(JSON.stringify(next.messages), "CONTEXT-FOR-Write")
    }), 60_000)
})
