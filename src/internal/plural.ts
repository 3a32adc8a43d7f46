/**
 * A count in words, for messages and summaries: `1 line`, `3 lines`, `2 entries`.
 */

/** `n` with `one` or, for any other count, `many` (`one` with an `s` unless given). */
export const plural = (n: number, one: string, many: string = `${one}s`): string => `${n} ${n === 1 ? one : many}`
