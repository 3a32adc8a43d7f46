/**
 * The extra stages of variant (e): a filter (src/filter: `Item.select`, the
 * flattening to items fused with the filter that keeps assistant text and
 * Read tool uses) and the partial-message assembler
 * (src/stream/Partial.ts), loaded from where bench/lib.ts says.
 */
import * as Stream from "effect/Stream"
import type * as FilterModule from "../src/filter/Filter.ts"
import type * as ItemModule from "../src/filter/Item.ts"
import type { Message } from "../src/schema/Message.ts"
import type * as PartialModule from "../src/stream/Partial.ts"
import { lib } from "./lib.ts"

export const load = async () => {
  const Filter = await lib<typeof FilterModule>("filter/Filter")
  const Item = await lib<typeof ItemModule>("filter/Item")
  const Partial = await lib<typeof PartialModule>("stream/Partial")
  const selected = Filter.or(Filter.text, Filter.toolUse("Read"))
  return {
    /** The flattening alone, for bench/breakdown.ts. */
    items: <E>(self: Stream.Stream<Message, E>): Stream.Stream<ItemModule.Item, E> => Item.items(self),
    /** (e) A typical filter over decoded messages: `Item.select`, the flattening and the filter in one stage. */
    filter: <E>(self: Stream.Stream<Message, E>): Stream.Stream<ItemModule.Item, E> => self.pipe(Item.select(selected)),
    /** The same filter as two stages, `Item.items` then `Stream.filter`, for bench/breakdown.ts. */
    itemsThenFilter: <E>(self: Stream.Stream<Message, E>): Stream.Stream<ItemModule.Item, E> =>
      self.pipe(Item.items, Stream.filter(selected)),
    /** (e) The partial-message assembler. */
    partial: <E>(self: Stream.Stream<Message, E>): Stream.Stream<PartialModule.Event, E> => Partial.assemble(self)
  }
}
