import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import { ClaudeCli } from "../src/index.ts"
import { Filter, Item } from "../src/filter/index.ts"
import { Summary } from "../src/stream/index.ts"
import { Fixture } from "../src/layers/index.ts"
import { fixturesDir, readLines } from "./support/Corpus.ts"

const recording = path.join(fixturesDir, "recorded", "complex_tool_chain.jsonl")

// Independent count: Bash tool_use blocks in assistant lines of the raw recording.
const rawBashCommands = readLines(recording).flatMap(({ text }) => {
  const line = JSON.parse(text)
  if (line.type !== "assistant") return []
  return (line.message.content as Array<{ type: string; name?: string; input?: { command: string } }>)
    .filter((block) => block.type === "tool_use" && block.name === "Bash")
    .map((block) => block.input!.command)
})

describe("the package entry point", () => {
  it.effect("runs the documented example against a fixture layer", () =>
    Effect.gen(function*() {
      const cli = yield* ClaudeCli.ClaudeCli
      const commands = yield* cli.query("ignored by the fixture").pipe(
        Item.items,
        Stream.filter(Filter.toolUse("Bash")),
        // Narrowed: `input.command` is a string without casts.
        Stream.map((item) => item.input.command),
        Stream.runCollect
      )
      assert.isAbove(rawBashCommands.length, 0)
      assert.deepStrictEqual(Array.from(commands), rawBashCommands)
      const summary = yield* cli.query("again").pipe(Stream.run(Summary.sink))
      assert.isTrue(summary.success)
    }).pipe(Effect.provide(Fixture.layer(recording))))
})
