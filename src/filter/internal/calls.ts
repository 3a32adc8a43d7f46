/**
 * Selecting with a filter that can need a call's result (`tool:Bash & error`, `tool & !denied`): a tool call
 * whose selection its result decides is held until that result arrives, then decided; every other item is
 * decided as it comes, by the filter alone.
 *
 * Order: items are decided in stream order, except a held call, which is decided when its result arrives,
 * just before that result; a call still held when the stream ends got no result (so it is neither an error
 * nor denied) and is decided then, in the order the calls came. Memory: the held calls only, each until its
 * result; calls are matched to results by tool use id, so parallel calls of one message and the calls of
 * subagents (sidechains) are each decided by their own result.
 *
 * @internal
 */
import type * as Ast from "../Ast.ts"
import type * as Item from "../Item.ts"
import type * as Decisions from "./decisions.ts"
import { evaluate, needsResults, outcomeOf, residual, settle } from "./evaluate.ts"

/** @internal */
export type Decide<P> = Decisions.Decide<Item.Item, P>

/** @internal */
export type Calls<P> = Decisions.Decisions<Item.Item, P>

interface Held<P> {
  readonly call: Item.ToolUseItem
  // What is left to decide on the result (see `residual`).
  readonly rest: Ast.Ast
  readonly payload: P
}

/**
 * The decisions of `ast`, or `undefined` when it never needs a result: then each item is decided alone, as
 * it comes (`evaluate`).
 *
 * @internal
 */
export const make = <P>(ast: Ast.Ast): Calls<P> | undefined => {
  if (!needsResults(ast)) return undefined
  // By tool use id; more than one call only when a stream repeats an id.
  const held = new Map<string, Array<Held<P>>>()
  const release = (calls: ReadonlyArray<Held<P>>, result: Item.ToolResultItem | undefined, decide: Decide<P>) => {
    const outcome = outcomeOf(result)
    for (const { call, payload, rest } of calls) decide(call, settle(rest, outcome), payload)
  }
  return {
    push: (item, payload, decide) => {
      if (item.kind === "tool_use") {
        const rest = residual(ast, item)
        if (typeof rest === "boolean") return decide(item, rest, payload)
        const same = held.get(item.id)
        if (same === undefined) held.set(item.id, [{ call: item, rest, payload }])
        else same.push({ call: item, rest, payload })
        return
      }
      if (item.kind === "tool_result") {
        const calls = held.get(item.toolUseId)
        if (calls !== undefined) {
          held.delete(item.toolUseId)
          release(calls, item, decide)
        }
      }
      decide(item, evaluate(ast, item), payload)
    },
    end: (decide) => {
      const calls = [...held.values()].flat()
      held.clear()
      release(calls, undefined, decide)
    },
    held: () => held.size
  }
}
