import { describe, expect, it } from "vitest"
import * as Pricing from "../../src/transcript/Pricing.ts"

const million = { inputTokens: 1e6, outputTokens: 1e6, cacheReadInputTokens: 1e6, cacheCreationInputTokens: 1e6 }

describe("Pricing", () => {
  describe("spellings", () => {
    it.each([
      ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
      ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"],
      ["claude-haiku-4-5@20251001", "claude-haiku-4-5"],
      ["claude-opus-4-6[1m]", "claude-opus-4-6"],
      ["claude-opus-4-20250514", "claude-opus-4-0"]
    ])("%s is priced as %s", (spelling, catalogId) => {
      expect(Pricing.priceOf(spelling)).toEqual(Pricing.priceOf(catalogId))
      expect(Pricing.priceOf(spelling)).toBeDefined()
    })

    it("an unknown model has no price", () => {
      expect(Pricing.priceOf("claude-opus-9")).toBeUndefined()
      expect(Pricing.costOf("gpt-4o", million)).toBeUndefined()
    })

    it("a newer model is not priced as an older one it starts with", () => {
      expect(Pricing.priceOf("claude-opus-4-1")?.input).toBe(15)
      expect(Pricing.priceOf("claude-opus-4-6")?.input).toBe(5)
      expect(Pricing.priceOf("claude-opus-5-5")?.input).toBe(4)
    })
  })

  describe("cost", () => {
    it("sums each kind of token at its own rate", () => {
      // Sonnet 4.6: 3 in, 15 out, 0.30 cache read, 3.75 cache write.
      expect(Pricing.costOf("claude-sonnet-4-6", million)).toBeCloseTo(3 + 15 + 0.3 + 3.75, 10)
      // Sonnet 5.5 reads its cache at 0.10, not a tenth of its input price.
      expect(Pricing.costOf("claude-sonnet-5-5", { ...million, inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0 }))
        .toBeCloseTo(0.1, 10)
    })

    it("a long prompt costs the long-prompt rate", () => {
      const short = { inputTokens: 100_000, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }
      expect(Pricing.costOf("claude-haiku-5-5", short)).toBeCloseTo(0.01, 10)
      expect(Pricing.costOf("claude-haiku-5-5", { ...short, inputTokens: 100_001 })).toBeCloseTo(100_001 * 0.5 / 1e6, 10)
    })
  })
})
