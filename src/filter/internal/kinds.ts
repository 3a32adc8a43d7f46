/**
 * The item kinds a filter can select, read from its tree: what lets a fused
 * flattening build no item that the filter would drop anyway, and what tells
 * a filter that can select nothing.
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

/**
 * The kinds whose error is a failure of the item itself (a failed tool result, a call whose result is one, an
 * error result, an API retry, a bad line); the other error kinds are errors only as part of an API error
 * message.
 *
 * @internal
 */
export const failureKinds = ["tool_result", "tool_use", "result", "system", "decode_failure"] as const

// Each atom's kinds, as `evaluate` tests them; an atom not listed can select any kind.
const atoms: { readonly [T in Ast.Ast["_tag"]]?: ReadonlyArray<string> } = {
  Text: ["text"],
  Thinking: ["thinking"],
  ToolUse: ["tool_use"],
  Typed: ["tool_use"],
  Input: ["tool_use"],
  ToolResult: ["tool_result"],
  System: ["system"],
  Delta: ["stream_event"],
  Denied: ["tool_use", "tool_result", "system"],
  Error: errorKinds,
  None: []
}

/**
 * The kinds of the items `ast` can select, or `undefined` when it can select
 * any kind: `Or` is the union of its operands', `And` their intersection,
 * `Not` and code predicates on items any kind. A superset: a kind listed may
 * still select nothing. `errors`: the kinds the `Error` atom stands for.
 *
 * @internal
 */
export const kindsOf = (ast: Ast.Ast, errors: ReadonlyArray<string> = errorKinds): ReadonlySet<string> | undefined => {
  switch (ast._tag) {
    case "Or": {
      const union = new Set<string>()
      for (const operand of ast.filters) {
        const kinds = kindsOf(operand, errors)
        if (kinds === undefined) return undefined
        for (const kind of kinds) union.add(kind)
      }
      return union
    }
    case "And": {
      let intersection: Set<string> | undefined
      for (const operand of ast.filters) {
        const kinds = kindsOf(operand, errors)
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
      const kinds = ast._tag === "Error" ? errors : atoms[ast._tag]
      return kinds === undefined ? undefined : new Set(kinds)
    }
  }
}

/**
 * Why a filter selects nothing whatever it reads, or `undefined`: its parts ask for items of different kinds
 * (`tool:Read & result:Read`); or why it selects only the items of API error messages: it asks for errors of
 * items that are errors only as part of one (`text & error`).
 *
 * @internal
 */
export const warning = (ast: Ast.Ast): string | undefined => {
  const kinds = kindsOf(ast)
  if (kinds === undefined) return undefined
  if (kinds.size === 0) return "it selects nothing: its parts ask for items of different kinds"
  if (kindsOf(ast, failureKinds)?.size !== 0) return undefined
  return `it selects only ${[...kinds].join(", ")} items of API error messages`
}
