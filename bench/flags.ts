/**
 * What the benchmarks' own entry points share (`npm run bench`'s command line is bench/args.ts): their flags
 * (`--name value`) and the median of their rounds.
 */

/** The text after `--name` on the command line, if the flag is given; the flag without a value fails. */
export const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  if (at < 0) return undefined
  const value = process.argv[at + 1]
  if (value === undefined || value.startsWith("--")) throw new Error(`--${name} takes a value`)
  return value
}

/** The whole number after `--name`, at least 1, or `fallback` when the flag is absent; anything else fails. */
export const count = (name: string, fallback: number): number => {
  const text = option(name)
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number of at least 1, got ${text}`)
  return value
}

/** The middle of `xs` (the mean of the two middle ones for an even count); `NaN` for none. */
export const median = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) return NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
