/**
 * How `Item.select` asks a filter for its decisions when its verdict on a tool call can need the call's
 * result (see calls.ts, which makes them): a filter carries a maker under {@link key}. Written over any item
 * type, so that Item.ts, below the filter modules, can use it.
 *
 * @internal
 */

/**
 * What a stage does with a decided item; `payload` is what came with the item (the line a display prints it
 * from).
 *
 * @internal
 */
export type Decide<I, P> = (item: I, selected: boolean, payload: P) => void

/**
 * A filter's decisions over a stream of items, with the calls it holds.
 *
 * @internal
 */
export interface Decisions<I, P> {
  /** Decides `item` now, or holds it (a call); a tool_result first decides the calls it answers. */
  readonly push: (item: I, payload: P, decide: Decide<I, P>) => void
  /** The stream has ended: the calls still held are decided, with no result. */
  readonly end: (decide: Decide<I, P>) => void
  /** How many tool use ids have calls held for their result. */
  readonly held: () => number
}

/**
 * Where a filter keeps the maker of its decisions: it gives `undefined` when the filter never needs a
 * result (then each item is decided alone, as it comes).
 *
 * @internal
 */
export const key: unique symbol = Symbol.for("effect-claude-code/Filter/decisions")

/** @internal */
export interface HasDecisions<I> {
  readonly [key]?: (<P>() => Decisions<I, P> | undefined) | undefined
}

/**
 * The decisions of a filter, if it has any to make.
 *
 * @internal
 */
export const of = <I, P>(filter: object): Decisions<I, P> | undefined => (filter as HasDecisions<I>)[key]?.<P>()

/**
 * The items of `items` that `decisions` selects now, appended to `out`.
 *
 * @internal
 */
export const selectInto = <I, A extends I>(decisions: Decisions<I, undefined>, items: Iterable<I>, out: Array<A>): Array<A> => {
  const keep: Decide<I, undefined> = (item, selected) => {
    if (selected) out.push(item as A)
  }
  for (const item of items) decisions.push(item, undefined, keep)
  return out
}

/**
 * The calls still held when the stream ends that `decisions` selects.
 *
 * @internal
 */
export const selectAtEnd = <I, A extends I>(decisions: Decisions<I, undefined>): Array<A> => {
  const out: Array<A> = []
  decisions.end((item, selected) => {
    if (selected) out.push(item as A)
  })
  return out
}
