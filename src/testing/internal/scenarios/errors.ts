/**
 * API failures and limits: retried errors, a fatal 400, the turn limit.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

/**
 * @since 0.1.0
 * @category scenarios
 */
export const errorCase: Scenario.Scenario = {
  name: "error_case",
  description: "529 overloaded, 429 rate limit (retry-after 1) and 500, retried (api_retry system messages), then success.",
  prompt: "Say hello despite the errors.",
  script: () =>
    Script.make([
      Script.turn("Hello after the retries.", {
        failures: [Script.overloaded(), Script.rateLimited(1), Script.serverError()]
      })
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const errorInvalidRequest: Scenario.Scenario = {
  name: "error_invalid_request",
  description: "A 400 invalid_request_error, which the CLI does not retry: an error result.",
  prompt: "This request is rejected.",
  script: () =>
    Script.make([
      Script.turn("never sent", { failures: [Script.invalidRequest("prompt is too long: 250000 tokens > 200000 maximum")] })
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const errorMaxTurns: Scenario.Scenario = {
  name: "error_max_turns",
  description: "--max-turns 1 with a model that keeps calling tools: result subtype error_max_turns.",
  prompt: "Keep listing files.",
  args: ["--max-turns", "1"],
  script: () =>
    Script.make([
      Script.turn([Script.toolUse("Bash", { command: "ls", description: "List files" })]),
      Script.turn([Script.toolUse("Bash", { command: "ls -a", description: "List all files" })]),
      Script.turn("Done listing.")
    ])
}
