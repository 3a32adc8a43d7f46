/**
 * The CLI's answer to the `initialize` request a session opens with: its slash commands, agents, models,
 * account, output styles, version and permission mode, as Claude Code 2.1.330 writes them.
 *
 * Every object keeps the keys this schema does not name (newer CLIs add some), and the lists default to
 * empty when a CLI leaves them out.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { open, optionalBoolean, optionalString, optionalStrings } from "../schema/internal/fields.ts"
import * as SessionError from "./SessionError.ts"

const opt = Schema.optionalKey
const list = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/**
 * A slash command the session accepts as a prompt (`/compact`, a skill, a project command).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SlashCommand = open({
  name: Schema.String,
  description: optionalString,
  argumentHint: optionalString,
  aliases: optionalStrings,
  builtin: optionalBoolean
})

/**
 * @since 0.1.0
 * @category models
 */
export type SlashCommand = typeof SlashCommand.Type

/**
 * A subagent the model can start with the Task tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Agent = open({
  name: Schema.String,
  description: optionalString,
  model: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Agent = typeof Agent.Type

/**
 * A model `setModel` accepts: `value` is what to pass, `resolvedModel` the model id it stands for.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Model = open({
  value: Schema.String,
  resolvedModel: optionalString,
  displayName: optionalString,
  description: optionalString,
  supportsEffort: optionalBoolean,
  supportedEffortLevels: optionalStrings,
  supportsAdaptiveThinking: optionalBoolean,
  supportsFastMode: optionalBoolean,
  supportsAutoMode: optionalBoolean,
  supportsThinkingOff: optionalBoolean
})

/**
 * @since 0.1.0
 * @category models
 */
export type Model = typeof Model.Type

/**
 * How the CLI is signed in (`apiKeySource: "ANTHROPIC_API_KEY"`, `apiProvider: "firstParty"`, an account's
 * email and organization for a subscription).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Account = open({
  email: optionalString,
  organization: optionalString,
  subscriptionType: optionalString,
  tokenSource: optionalString,
  apiKeySource: optionalString,
  apiProvider: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Account = typeof Account.Type

/**
 * The whole `initialize` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Initialization = open({
  commands: list(SlashCommand),
  agents: list(Agent),
  models: list(Model),
  account: opt(Account),
  output_style: optionalString,
  available_output_styles: list(Schema.String),
  /** The CLI's own pid (the session's `pid` is the process the session started, which may be a wrapper). */
  pid: opt(Schema.Number),
  claude_code_version: optionalString,
  current_permission_mode: optionalString,
  capabilities: optionalStrings,
  // Whether the CLI applied what `initialize` sent (hooks, plugins, MCP servers) rather than ignoring it.
  hooks_applied: optionalBoolean,
  hook_on_failure_supported: optionalBoolean,
  plugins_applied: optionalBoolean,
  mcp_servers_applied: optionalBoolean,
  sdk_mcp_manifests_parked: opt(Schema.Record(Schema.String, Schema.String)),
  fast_mode_state: optionalString,
  fast_mode_disabled_reason: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Initialization = typeof Initialization.Type

/**
 * Decodes an `initialize` response; one that does not fit fails with `InvalidResponse`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (response: unknown): Effect.Effect<Initialization, SessionError.SessionError> =>
  Schema.decodeUnknownEffect(Initialization)(response).pipe(
    Effect.mapError((error) =>
      SessionError.make(new SessionError.InvalidResponse({ subtype: "initialize", detail: error.message }))
    )
  )
