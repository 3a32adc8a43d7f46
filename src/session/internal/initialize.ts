/**
 * The session options the CLI takes only in the `initialize` request a session opens with (no flag stands
 * for them), and that request's body.
 *
 * @internal
 */
import type * as QueryOptions from "../../QueryOptions.ts"

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
  /**
   * `"initialize"`: `plugins` go in the `initialize` request instead of on the command line. Default `"argv"`.
   */
  readonly pluginDelivery?: "argv" | "initialize" | undefined
  /**
   * `"initialize"`: the MCP servers given as objects in `mcpConfig` go in the `initialize` request, so that
   * their environment and headers are not on the command line, where other users of the machine can read
   * them. Configuration files stay flags. Default `"argv"`.
   */
  readonly mcpServersDelivery?: "argv" | "initialize" | undefined
}

type Delivered = Options & Pick<QueryOptions.QueryOptions, "plugins" | "mcpConfig" | "skills">

const inlineServers = (options: Delivered): Record<string, unknown> | undefined => {
  if (options.mcpServersDelivery !== "initialize") return undefined
  const inline = (options.mcpConfig ?? []).flatMap((c) => typeof c === "string" ? [] : [c.mcpServers ?? {}])
  return inline.length === 0 ? undefined : Object.assign({}, ...inline)
}

const pluginsDelivered = (options: Delivered) =>
  options.pluginDelivery === "initialize" && (options.plugins ?? []).length > 0 ? options.plugins : undefined

/**
 * The options left for the command line once what goes in `initialize` is taken out, and whether the CLI
 * must wait for that request before it starts (`--await-initialize`).
 *
 * @since 0.1.0
 * @category conversions
 */
export const forArgv = <O extends Delivered>(options: O): { readonly options: O; readonly await: boolean } => {
  const plugins = pluginsDelivered(options) !== undefined
  const servers = inlineServers(options) !== undefined
  return {
    options: {
      ...options,
      ...(plugins ? { plugins: undefined } : {}),
      ...(servers ? { mcpConfig: options.mcpConfig?.filter((c) => typeof c === "string") } : {})
    },
    await: plugins || servers
  }
}

/**
 * The `initialize` request of a session: hooks, in-process MCP servers and the options above, with the
 * skills the session enables when they are named.
 *
 * @since 0.1.0
 * @category constructors
 */
export const request = (
  options: Delivered,
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
    skills: Array.isArray(options.skills) ? options.skills : undefined,
    plugins: pluginsDelivered(options),
    mcpServers: inlineServers(options)
  }
  return {
    subtype: "initialize",
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
  }
}
