/**
 * `Item.select` (flattening and filter in one stage, building only the kinds a filter can select) against
 * `Item.items` then the filter (a call whose verdict its outcome decides judged with its result, and placed
 * at it), over every corpus file and fixture; and the kinds read from a filter's tree against the items it
 * selects.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import { needsResults } from "../../src/filter/internal/evaluate.ts"
import { kindsOf } from "../../src/filter/internal/kinds.ts"
import * as Item from "../../src/filter/Item.ts"
import { decodeAll } from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { atom, filterOf, selectedWithResults } from "./support.ts"

// Every line, decoded leniently: decode failures are inputs too.
const inputsOf = (file: string): Array<Item.Input> =>
  decodeAll(fs.readFileSync(file)).map((d) => isDecodeError(d) ? d : d.message)

const files = allStreamJsonFiles.map((file) => ({ name: path.basename(file), inputs: inputsOf(file) }))

// Code predicates too: on items (any kind) and on a tool use's input.
const anyFilter = filterOf(fc.oneof(
  atom,
  fc.constantFrom(
    Filter.where((item) => item.messageIndex % 3 === 0, "every third message"),
    Filter.toolUse("Bash", (input) => input.command.includes("ls"), "ls"),
    Filter.toolUse((item) => item.name.startsWith("mcp__"), "mcp")
  )
))

// The filters of the README and the bench, and one per kind of atom.
const named: ReadonlyArray<Filter.Filter> = [
  Filter.or(Filter.text, Filter.toolUse("Read")),
  Filter.and(Filter.toolResult(), Filter.error),
  Filter.or(Filter.delta("text"), Filter.system("init")),
  Filter.not(Filter.delta()),
  Filter.and(Filter.subagent, Filter.toolUse()),
  Filter.error,
  Filter.permissionDenied,
  Filter.messageType("rate_limit_event"),
  Filter.none,
  Filter.all
]

const selectAll = (inputs: ReadonlyArray<Item.Input>, filter: Filter.Filter, chunkSize: number) =>
  Effect.runSync(Stream.runCollect(Stream.fromIterable(inputs, { chunkSize }).pipe(Item.select(filter))))

describe("Item.select", () => {
  for (const { name, inputs } of files) {
    it(`selects what items + filter select: ${name}`, () => {
      const items = Item.fromIterable(inputs)
      for (const filter of named) {
        const expected = selectedWithResults(items, filter)
        // A filter that tests no outcome: exactly the filter over the items.
        if (!needsResults(filter.ast)) assert.deepStrictEqual(expected, items.filter(filter), Filter.describe(filter))
        assert.deepStrictEqual(selectAll(inputs, filter, 4096), expected, Filter.describe(filter))
        // One message per chunk: the flattener's state carries over from chunk to chunk.
        assert.deepStrictEqual(selectAll(inputs, filter, 1), expected, Filter.describe(filter))
      }
      fc.assert(
        fc.property(anyFilter, fc.integer({ min: 1, max: 8 }), (filter, chunkSize) => {
          assert.deepStrictEqual(selectAll(inputs, filter, chunkSize), selectedWithResults(items, filter), Filter.describe(filter))
        }),
        { numRuns: 40 }
      )
    })
  }

  it("the kinds read from a filter hold every item it selects", () => {
    const items = files.flatMap(({ inputs }) => Item.fromIterable(inputs))
    fc.assert(
      fc.property(anyFilter, (filter) => {
        const kinds = kindsOf(filter.ast)
        if (kinds === undefined) return
        for (const item of items) if (filter(item)) assert.isTrue(kinds.has(item.kind), `${Filter.describe(filter)}: ${item.kind}`)
      }),
      { numRuns: 300 }
    )
    assert.deepStrictEqual(kindsOf(Filter.or(Filter.text, Filter.toolUse("Read")).ast), new Set(["text", "tool_use"]))
    assert.deepStrictEqual(kindsOf(Filter.and(Filter.text, Filter.toolResult()).ast), new Set())
    assert.isUndefined(kindsOf(Filter.not(Filter.text).ast))
  })

  it("is data-first and data-last, and types the items it selects", () => {
    const { inputs } = files.find((f) => f.inputs.length > 0)!
    const stream = Stream.fromIterable(inputs)
    const bash = Filter.toolUse("Bash")
    const first: Array<Item.ToolUseItem<"Bash">> = Effect.runSync(Stream.runCollect(Item.select(stream, bash)))
    assert.deepStrictEqual(first, Effect.runSync(Stream.runCollect(stream.pipe(Item.select(bash)))))
  })
})
