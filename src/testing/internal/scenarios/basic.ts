/**
 * Scenarios without tools: plain text, arithmetic, extended thinking.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

/**
 * @since 0.1.0
 * @category scenarios
 */
export const simpleHello: Scenario.Scenario = {
  name: "simple_hello",
  description: "One text turn answering a greeting.",
  prompt: "Say hello",
  script: () => Script.make([Script.turn("Hello! How can I help you today?")])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const mathCalculation: Scenario.Scenario = {
  name: "math_calculation",
  description: "One text turn with an arithmetic answer, custom usage figures.",
  prompt: "What is 15 * 23?",
  script: () =>
    Script.make([
      Script.turn("15 × 23 = 345.\n\nBreaking it down: 15 × 20 = 300 and 15 × 3 = 45, so 300 + 45 = 345.", {
        usage: { input_tokens: 42, output_tokens: 31, cache_read_input_tokens: 12 }
      })
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const thinking: Scenario.Scenario = {
  name: "thinking",
  description: "A thinking block (with signature) followed by text.",
  prompt: "Is 97 prime? Think it through.",
  script: () =>
    Script.make([
      Script.turn([
        Script.thinking(
          "97 is odd, its digit sum 16 is not divisible by 3, it does not end in 5, and 97 / 7 is 13.86. " +
            "sqrt(97) < 10, so no further divisors to check."
        ),
        Script.text("Yes, 97 is prime: no integer from 2 to 9 divides it.")
      ])
    ])
}
