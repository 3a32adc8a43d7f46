/**
 * Run Claude Code and keep only the tool activity you care about, typed.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Stream } from "effect"
import { ClaudeCli } from "../src/index.ts"
import { Filter, Item, Views } from "../src/filter/index.ts"
import { Summary } from "../src/stream/index.ts"
import { Live } from "../src/layers/index.ts"

// The Bash commands Claude runs. `Item.select` flattens messages into items (content blocks and other
// messages) and keeps those the filter selects; the filter narrows them: `item.input.command` is a string.
export const bashCommands = (prompt: string) =>
  ClaudeCli.query(prompt, { allowedTools: ["Bash"] }).pipe(
    Item.select(Filter.toolUse("Bash")),
    Stream.map((item) => item.input.command)
  )

// Each tool call paired with its result (and how long it took), as soon as the result is in.
export const toolCalls = (prompt: string) =>
  ClaudeCli.query(prompt, { allowedTools: ["Bash", "Read"] }).pipe(Item.items, Views.toolCalls)

// How the run ended, from its result line: final answer, success, cost, turns, permission denials.
export const summary = (prompt: string) => ClaudeCli.query(prompt).pipe(Stream.run(Summary.sink))

// `node examples/tool-activity.ts` runs it on the `claude` on your PATH.
if (import.meta.main) {
  bashCommands("How many TypeScript files are in src?").pipe(
    Stream.runForEach((command) => Console.log(`$ ${command}`)),
    Effect.provide(Live.layer()),
    NodeRuntime.runMain
  )
}
