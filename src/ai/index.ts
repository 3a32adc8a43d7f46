/**
 * Claude Code in Effect's own AI layer (`effect/ai`): a `LanguageModel` provider, and Claude Code's tools as
 * provider-defined tools. Toolkits reach sessions through `McpServer.fromToolkit` (`effect-claude-code/session`).
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as ClaudeCodeLanguageModel from "./ClaudeCodeLanguageModel.ts"

/**
 * @since 0.1.0
 */
export * as ClaudeCodeTool from "./ClaudeCodeTool.ts"
