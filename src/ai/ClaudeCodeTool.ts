/**
 * Claude Code's own tools as `effect/ai` provider-defined tools. Claude Code runs them itself; put the ones
 * it may run without asking in the toolkit of a request (they join `allowedTools`), and their calls come
 * back in the response as provider-executed tool calls with their results. Their parameters are the CLI's
 * input schemas (`ToolInput` of `effect-claude-code/schema`), so a call's `params` are typed: `Read`'s
 * have a `file_path`, `Bash`'s a `command`.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { LanguageModel, Toolkit } from "effect/ai"
 * import { ClaudeCodeTool } from "effect-claude-code/ai"
 *
 * const answer = LanguageModel.generateText({
 *   prompt: "What does notes.txt say?",
 *   toolkit: Toolkit.make(ClaudeCodeTool.Read, ClaudeCodeTool.Grep)
 * })
 * ```
 */
import * as Tool from "effect/ai/Tool"
import * as Schema from "effect/Schema"
import * as ToolInput from "../schema/ToolInput.ts"

const idPrefix = "claude-code."

const builtIn = <const Name extends ToolInput.KnownToolName>(name: Name) =>
  Tool.providerDefined({
    id: `claude-code.${name}`,
    customName: name,
    providerName: name,
    args: Schema.Struct({}),
    parameters: ToolInput.schemas[name],
    // Results are the CLI's text, or its blocks as JSON: no schema says more of them.
    success: Schema.Unknown,
    failure: Schema.Unknown
  })({})

/**
 * Whether a tool is one of Claude Code's own.
 *
 * @since 0.1.0
 * @category guards
 */
export const isClaudeCodeTool = (tool: Tool.Any): tool is Tool.AnyProviderDefined =>
  Tool.isProviderDefined(tool) && tool.id.startsWith(idPrefix)

/**
 * @since 0.1.0
 * @category tools
 */
export const Bash = builtIn("Bash")
/**
 * @since 0.1.0
 * @category tools
 */
export const Read = builtIn("Read")
/**
 * @since 0.1.0
 * @category tools
 */
export const Write = builtIn("Write")
/**
 * @since 0.1.0
 * @category tools
 */
export const Edit = builtIn("Edit")
/**
 * @since 0.1.0
 * @category tools
 */
export const Glob = builtIn("Glob")
/**
 * @since 0.1.0
 * @category tools
 */
export const Grep = builtIn("Grep")
/**
 * @since 0.1.0
 * @category tools
 */
export const WebFetch = builtIn("WebFetch")
/**
 * @since 0.1.0
 * @category tools
 */
export const WebSearch = builtIn("WebSearch")
/**
 * @since 0.1.0
 * @category tools
 */
export const Task = builtIn("Task")
/**
 * @since 0.1.0
 * @category tools
 */
export const TodoWrite = builtIn("TodoWrite")
/**
 * @since 0.1.0
 * @category tools
 */
export const NotebookEdit = builtIn("NotebookEdit")
