/**
 * List prices of Claude models (USD per million tokens), for the cost of a transcript, which records tokens
 * but no cost. Cache writes (5 minutes) cost 1.25 times the input price, cache reads 0.1 times. A model not
 * listed has no price: its cost is unknown, never 0.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export interface Price {
  readonly input: number
  readonly output: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadInputTokens: number
  readonly cacheCreationInputTokens: number
}

// Model id prefixes, most specific first.
const table: ReadonlyArray<readonly [string, Price]> = [
  ["claude-opus-4-5", { input: 5, output: 25 }],
  ["claude-opus-4-1", { input: 15, output: 75 }],
  ["claude-opus-4-20", { input: 15, output: 75 }],
  ["claude-sonnet-4", { input: 3, output: 15 }],
  ["claude-haiku-4-5", { input: 1, output: 5 }],
  ["claude-3-7-sonnet", { input: 3, output: 15 }],
  ["claude-3-5-sonnet", { input: 3, output: 15 }],
  ["claude-3-5-haiku", { input: 0.8, output: 4 }],
  ["claude-3-opus", { input: 15, output: 75 }],
  ["claude-3-haiku", { input: 0.25, output: 1.25 }]
]

/**
 * The price of a model, by its id; `undefined` when not listed.
 *
 * @since 0.1.0
 * @category pricing
 */
export const priceOf = (model: string): Price | undefined => table.find(([prefix]) => model.startsWith(prefix))?.[1]

/**
 * What tokens of a model cost, in USD; `undefined` for a model without a price.
 *
 * @since 0.1.0
 * @category pricing
 */
export const costOf = (model: string, tokens: Tokens): number | undefined => {
  const price = priceOf(model)
  if (price === undefined) return undefined
  return (tokens.inputTokens * price.input + tokens.outputTokens * price.output +
    tokens.cacheCreationInputTokens * price.input * 1.25 + tokens.cacheReadInputTokens * price.input * 0.1) / 1e6
}
