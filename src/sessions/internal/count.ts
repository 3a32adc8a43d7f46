/**
 * A count of transcript entries in words: "1 entry", "3 entries".
 *
 * @internal
 */
export const entries = (n: number): string => `${n} ${n === 1 ? "entry" : "entries"}`
