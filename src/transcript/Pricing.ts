/**
 * List prices of Claude models (USD per million tokens), for the cost of a transcript, which records tokens
 * but no cost. The table is the model catalog of the pinned CLI (2.1.330), the prices its own `total_cost_usd`
 * uses. A model not listed has no price: its cost is unknown, never 0.
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
  readonly cacheRead: number
  /** Cache writes; a transcript's usage does not always say which were 1-hour writes, so all are priced at the 5-minute rate. */
  readonly cacheWrite: number
  /** The higher price of a request whose prompt (input, cache reads and writes) is above `abovePromptTokens`. */
  readonly longPrompt?: { readonly abovePromptTokens: number; readonly price: Price } | undefined
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

const tier = (input: number, output: number, cacheRead = input / 10): Price =>
  ({ input, output, cacheRead, cacheWrite: input * 1.25 })

// The catalog's pricing tiers.
const tier3_15 = tier(3, 15)
const tier5_25 = tier(5, 25)
const tier15_75 = tier(15, 75)

// Catalog ids (a model's dated or provider spellings are reduced to these by `catalogId`).
const table: ReadonlyMap<string, Price> = new Map([
  ["claude-3-haiku", tier(0.25, 1.25)],
  ["claude-3-5-haiku", tier(0.8, 4)],
  ["claude-haiku-4-5", tier(1, 5)],
  ["claude-haiku-5-5", { ...tier(0.1, 0.5), longPrompt: { abovePromptTokens: 100_000, price: tier(0.5, 2.5) } }],
  ["claude-3-5-sonnet", tier3_15],
  ["claude-3-7-sonnet", tier3_15],
  ["claude-sonnet-4", tier3_15],
  ["claude-sonnet-4-0", tier3_15],
  ["claude-sonnet-4-5", tier3_15],
  ["claude-sonnet-4-6", tier3_15],
  ["claude-sonnet-5", tier(2, 10)],
  ["claude-sonnet-5-5", tier(2, 10, 0.1)],
  ["claude-3-opus", tier15_75],
  ["claude-opus-4", tier15_75],
  ["claude-opus-4-0", tier15_75],
  ["claude-opus-4-1", tier15_75],
  ["claude-opus-4-5", tier5_25],
  ["claude-opus-4-6", tier5_25],
  ["claude-opus-4-7", tier5_25],
  ["claude-opus-4-8", tier5_25],
  ["claude-opus-5", tier5_25],
  ["claude-opus-5-5", tier(4, 20, 0.2)],
  ["claude-fable-5", tier(10, 50)],
  ["claude-fable-5-1", tier(10, 50, 0.25)],
  ["claude-fable-5-2", tier(8, 40, 0.2)],
  ["claude-mythos-5", tier(10, 50)],
  ["claude-mythos-5-1", tier(10, 50, 0.25)],
  ["claude-mythos-5-2", tier(8, 40, 0.2)]
])

// "claude-sonnet-4-5-20250929", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929"
// and "claude-opus-4-6[1m]" are all spellings of one catalog id.
const catalogId = (model: string): string | undefined =>
  /claude-[a-z0-9-]*[a-z0-9]/.exec(model)?.[0].replace(/-v\d+$/, "").replace(/-\d{8}$/, "")

/**
 * The price of a model, by its id; `undefined` when not listed.
 *
 * @since 0.1.0
 * @category pricing
 */
export const priceOf = (model: string): Price | undefined => {
  const id = catalogId(model)
  return id === undefined ? undefined : table.get(id)
}

/**
 * What tokens of a model cost, in USD; `undefined` for a model without a price.
 *
 * @since 0.1.0
 * @category pricing
 */
export const costOf = (model: string, tokens: Tokens): number | undefined => {
  const listed = priceOf(model)
  if (listed === undefined) return undefined
  const prompt = tokens.inputTokens + tokens.cacheReadInputTokens + tokens.cacheCreationInputTokens
  const price = listed.longPrompt !== undefined && prompt > listed.longPrompt.abovePromptTokens
    ? listed.longPrompt.price
    : listed
  return (tokens.inputTokens * price.input + tokens.outputTokens * price.output +
    tokens.cacheCreationInputTokens * price.cacheWrite + tokens.cacheReadInputTokens * price.cacheRead) / 1e6
}
