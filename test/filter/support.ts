/**
 * Arbitrary filters for the filter suites: every atom (with awkward values) and operator, nested.
 */
import * as fc from "fast-check"
import * as Filter from "../../src/filter/Filter.ts"

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
  value.map(Filter.fromTask)
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
