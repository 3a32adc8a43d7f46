/**
 * Copies of sets and maps without one entry, for state kept in a `Ref` and replaced whole.
 *
 * @internal
 */

/** The set without `value`. */
export const without = <A>(set: ReadonlySet<A>, value: A): ReadonlySet<A> => {
  const rest = new Set(set)
  rest.delete(value)
  return rest
}

/** The map without `key`, and what it held there. */
export const take = <K, V>(map: ReadonlyMap<K, V>, key: K): readonly [V | undefined, ReadonlyMap<K, V>] => {
  if (!map.has(key)) return [undefined, map]
  const rest = new Map(map)
  rest.delete(key)
  return [map.get(key), rest]
}
