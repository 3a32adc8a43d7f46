/**
 * The extra stages of variant (e): a filter (src/filter: flatten to items,
 * keep assistant text and Read tool uses) and the partial-message assembler
 * (src/stream/Partial.ts).
 */
import * as Stream from "effect/Stream"
import * as Filter from "../src/filter/Filter.ts"
import * as Item from "../src/filter/Item.ts"
import type { Message } from "../src/schema/Message.ts"
import * as Partial from "../src/stream/Partial.ts"

const selected = Filter.or(Filter.text, Filter.toolUse("Read"))

/** (e) A typical filter over decoded messages. */
export const filter = <E>(self: Stream.Stream<Message, E>): Stream.Stream<Item.Item, E> =>
  self.pipe(Item.items, Stream.filter(selected))

/** (e) The partial-message assembler. */
export const partial = <E>(self: Stream.Stream<Message, E>): Stream.Stream<Partial.Event, E> => Partial.assemble(self)
