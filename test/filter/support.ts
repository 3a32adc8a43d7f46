/**
 * Arbitrary filters for the filter suites: every atom (with awkward values) and operator, nested; and what
 * `Item.select` selects, worked out over a whole array of items.
 */
import * as fc from "fast-check"
import * as Filter from "../../src/filter/Filter.ts"
import { evaluate } from "../../src/filter/internal/evaluate.ts"
import type * as Item from "../../src/filter/Item.ts"

export const value = fc.oneof(
  fc.constantFrom("Bash", "mcp__github__*", "Rea?", "my-tool*", "init", "toolu_01", "a:b", "x y", "(", "\"", "\\", "not", "", "tool"),
  fc.string()
)
export const optValue = fc.option(value, { nil: undefined })

export const atom: fc.Arbitrary<Filter.Filter> = fc.oneof(
  fc.constantFrom(
    Filter.text,
    Filter.thinking,
    Filter.error,
    Filter.permissionDenied,
    Filter.typed,
    Filter.subagent,
    Filter.main,
    Filter.all,
    Filter.none
  ),
  optValue.map((n) => n === undefined ? Filter.toolUse() : Filter.toolUse(n)),
  fc.constantFrom("Bash", "Read", "Rea*", "mcp__x__y").map((n) => Filter.toolUse(n, { typed: false })),
  fc.record({ name: optValue, isError: fc.option(fc.boolean(), { nil: undefined }) }).map((o) => Filter.toolResult(o)),
  optValue.map(Filter.system),
  optValue.map(Filter.delta),
  value.map(Filter.messageType),
  value.map(Filter.session),
  value.map(Filter.fromTask),
  value.map(Filter.command),
  value.map(Filter.path),
  value.map(Filter.url),
  fc.tuple(fc.constantFrom("repo", "file_path", "a.b", "Query_2"), value).map(([field, glob]) => Filter.input(field, glob))
)

/** Filters nested from `atoms` with `not`, `and` and `or`. */
export const filterOf = (atoms: fc.Arbitrary<Filter.Filter>): fc.Arbitrary<Filter.Filter> =>
  fc.letrec<{ f: Filter.Filter }>((tie) => ({
    f: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      atoms,
      tie("f").map(Filter.not),
      fc.array(tie("f"), { maxLength: 4 }).map((fs) => Filter.and(...fs)),
      fc.array(tie("f"), { maxLength: 4 }).map((fs) => Filter.or(...fs))
    )
  })).f

/** Filters with a text form. */
export const filter: fc.Arbitrary<Filter.Filter> = filterOf(atom)

// A result of each outcome, and none: what a call's verdict can depend on.
const outcomes: ReadonlyArray<Item.ToolResultItem | undefined> = [
  undefined,
  ...[false, true].flatMap((isError) =>
    [false, true].map((denied) => ({ kind: "tool_result", isError, denied }) as Item.ToolResultItem)
  )
]

/**
 * What `Item.select` gives of these items, worked out over the whole array: each item as the filter selects
 * it, a tool call with its result (the first later tool_result of its id). A call whose verdict an outcome
 * would change comes just before its result, or after every item when it has none; every other item stays
 * in place.
 */
export const selectedWithResults = (items: ReadonlyArray<Item.Item>, filter: Filter.Filter): Array<Item.Item> => {
  const out: Array<Item.Item> = []
  const beforeResult = new Map<Item.Item, Array<Item.Item>>()
  const atEnd: Array<Item.Item> = []
  items.forEach((item, i) => {
    out.push(...beforeResult.get(item) ?? [])
    if (item.kind !== "tool_use") {
      if (filter(item)) out.push(item)
      return
    }
    const verdicts = outcomes.map((result) => evaluate(filter.ast, item, result))
    if (verdicts.every((v) => v === verdicts[0])) {
      if (verdicts[0]) out.push(item)
      return
    }
    const result = items.slice(i + 1).find((r): r is Item.ToolResultItem => r.kind === "tool_result" && r.toolUseId === item.id)
    if (!evaluate(filter.ast, item, result)) return
    if (result === undefined) atEnd.push(item)
    else beforeResult.set(result, [...beforeResult.get(result) ?? [], item])
  })
  return [...out, ...atEnd]
}
