/**
 * The session options the CLI takes only in the `initialize` request a session opens with (no flag stands
 * for them), and that request's body.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Tool names the model may write, mapped to the tool that runs instead (`{ Bash: "mcp__box__bash" }`).
   * One hop: an alias of an alias is taken literally.
   */
  readonly toolAliases?: Readonly<Record<string, string>> | undefined
  /** Instructions the model follows in plan mode, instead of Claude Code's. */
  readonly planModeInstructions?: string | undefined
  /** Periodic summaries of what running subagents do, as `task_progress` messages. */
  readonly agentProgressSummaries?: boolean | undefined
  /**
   * Dialog kinds `onUserDialog` renders (`request_user_dialog` `dialog_kind`s): the CLI sends no other kind,
   * and degrades the flows behind them to their no-dialog behaviour. Needs `onUserDialog`.
   */
  readonly supportedDialogKinds?: ReadonlyArray<string> | undefined
  /**
   * The host stops background tasks one by one (`stopTask`): an interrupt then ends only the turn and
   * spares running background agents.
   */
  readonly perTaskStopAffordance?: boolean | undefined
}

/**
 * The `initialize` request of a session: hooks, in-process MCP servers and the options above, with the
 * skills the session enables when they are named.
 *
 * @since 0.1.0
 * @category constructors
 */
export const request = (
  options: Options & { readonly skills?: ReadonlyArray<string> | "all" | undefined },
  registered: {
    readonly hooks: Record<string, unknown> | undefined
    readonly sdkMcpServers: ReadonlyArray<string> | undefined
  }
): Readonly<Record<string, unknown>> & { readonly subtype: "initialize" } => {
  const fields: Record<string, unknown> = {
    hooks: registered.hooks,
    sdkMcpServers: registered.sdkMcpServers,
    toolAliases: options.toolAliases,
    planModeInstructions: options.planModeInstructions,
    agentProgressSummaries: options.agentProgressSummaries,
    supportedDialogKinds: options.supportedDialogKinds,
    perTaskStopAffordance: options.perTaskStopAffordance,
    skills: Array.isArray(options.skills) ? options.skills : undefined
  }
  return {
    subtype: "initialize",
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
  }
}
