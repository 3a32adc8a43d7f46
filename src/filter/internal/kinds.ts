/**
 * The item kinds a filter can select, read from its tree: what lets a fused
 * flattening build no item that the filter would drop anyway.
 *
 * @internal
 */
import type * as Ast from "../Ast.ts"

// Item kinds by name (`Item.Kind`; evaluate.ts checks the names against it): this module sits below Item.ts,
// which asks it what a filter can select.

/**
 * The kinds of the items `isError` can hold for (evaluate.ts tests each).
 *
 * @internal
 */
export const errorKinds = ["tool_result", "result", "system", "decode_failure", "text", "thinking", "tool_use", "block"] as const

// Each atom's kinds, as `evaluate` tests them; an atom not listed can select any kind.
const atoms: { readonly [T in Ast.Ast["_tag"]]?: ReadonlyArray<string> } = {
  Text: ["text"],
  Thinking: ["thinking"],
  ToolUse: ["tool_use"],
  Typed: ["tool_use"],
  ToolResult: ["tool_result"],
  System: ["system"],
  Delta: ["stream_event"],
  Denied: ["tool_result", "system"],
  Error: errorKinds,
  None: []
}

/**
 * The kinds of the items `ast` can select, or `undefined` when it can select
 * any kind: `Or` is the union of its operands', `And` their intersection,
 * `Not` and code predicates on items any kind. A superset: a kind listed may
 * still select nothing.
 *
 * @internal
 */
export const kindsOf = (ast: Ast.Ast): ReadonlySet<string> | undefined => {
  switch (ast._tag) {
    case "Or": {
      const union = new Set<string>()
      for (const operand of ast.filters) {
        const kinds = kindsOf(operand)
        if (kinds === undefined) return undefined
        for (const kind of kinds) union.add(kind)
      }
      return union
    }
    case "And": {
      let intersection: Set<string> | undefined
      for (const operand of ast.filters) {
        const kinds = kindsOf(operand)
        if (kinds === undefined) continue
        intersection = intersection === undefined
          ? new Set(kinds)
          : new Set([...intersection].filter((kind) => kinds.has(kind)))
      }
      return intersection
    }
    case "Where":
      return ast.on === "input" ? new Set(["tool_use"]) : undefined
    default: {
      const kinds = atoms[ast._tag]
      return kinds === undefined ? undefined : new Set(kinds)
    }
  }
}
