import { describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as Session from "../../src/session/Session.ts"
import * as HookEvents from "../../src/session/HookEvents.ts"
import * as Permission from "../../src/session/Permission.ts"
import * as Script from "../../src/testing/Script.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import { collect, setup } from "./support/Real.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>

describe("explore hooks", () => {
  it.live("which fire", () =>
    run(Effect.gen(function*() {
      const { base } = yield* setup(Script.make([
        Script.turn(Script.toolUse("Write", { file_path: "a.txt", content: "x" })),
        Script.turn(Script.toolUse("Bash", { command: "exit 3" })),
        Script.turn(Script.toolUse("Agent", { description: "sub", prompt: "Do the sub thing", subagent_type: "general-purpose" })),
        Script.turn(Script.toolUse("TaskCreate", { subject: "a task", description: "do a" })),
        Script.turn(Script.toolUse("TaskUpdate", { taskId: "1", status: "completed" })),
        Script.turn(Script.toolUse("Bash", { command: "mkdir -p sub && cd sub" })),
        Script.turn("done"),
        Script.turn("compacted summary"),
        Script.turn("after compact"),
        Script.turn("after compact2")
      ], { subagents: [Script.conversation("sub", MessagesRequest.firstUserTextIncludes("Do the sub thing"), [Script.turn("sub done")])] }))
      const seen: Array<string> = []
      fs.writeFileSync(base.cwd + "/CLAUDE.md", "Be nice.\n")
      fs.mkdirSync(base.cwd + "/.claude/commands", { recursive: true })
      fs.writeFileSync(base.cwd + "/.claude/commands/greet.md", "---\ndescription: greets\n---\nSay hello to $ARGUMENTS\n")
      const other = fs.mkdtempSync("/tmp/sdkx/repo-")
      const hooks = Object.fromEntries(HookEvents.events.map((e) => [e, [{ hooks: [(input: any) => Effect.sync(() => { seen.push(e + ":" + input.hook_event_name); return {} })] }]]))
      const session = yield* Session.make({ ...base, settingSources: ["project", "local", "user"], hooks: hooks as any, canUseTool: () => Effect.succeed(Permission.allow()) })
      yield* collect(session.turn("do things"))
      yield* Effect.exit((session as any).registerRepoRoot(other))
      yield* Effect.exit(collect(session.turn("/greet bob")))
      yield* Effect.exit(collect(session.turn("/compact")))
      yield* Effect.exit(session.setModel("haiku"))
      yield* Effect.exit(collect(session.turn("more")))
      yield* session.close
      fs.writeFileSync("/tmp/sdkx/hooks.json", JSON.stringify([...new Set(seen)]))
    })), 120_000)
})
