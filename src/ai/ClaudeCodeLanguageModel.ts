/**
 * Claude Code as an `effect/ai` `LanguageModel`: `generateText`, `streamText` and `generateObject` run one
 * Claude Code turn through the `ClaudeCli` in context, so any Effect AI program (and `Chat`) can use the
 * agent by swapping its model layer ({@link layer}, {@link model}). A request's own tools are served to the
 * CLI as an in-process MCP server; `ClaudeCodeTool`s let it run Claude Code's built-in tools. Failures are
 * `AiError`s.
 *
 * @since 0.1.0
 */
import * as AiError from "effect/ai/AiError"
import * as AnthropicStructuredOutput from "effect/ai/AnthropicStructuredOutput"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiModel from "effect/ai/Model"
import type * as Response from "effect/ai/Response"
import * as ResponseIdTracker from "effect/ai/ResponseIdTracker"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as McpServer from "../session/McpServer.ts"
import type * as Session from "../session/Session.ts"
import * as SessionError from "../session/SessionError.ts"
import type { Message } from "../schema/Message.ts"
import * as Partial from "../stream/Partial.ts"
import * as ClaudeCodeTool from "./ClaudeCodeTool.ts"
import * as Prompt from "./internal/prompt.ts"
import * as Translate from "./internal/translate.ts"

/**
 * The options of a Claude Code turn: a session's options (model, permission mode, allowed tools, working
 * directory, callbacks, ...) but the structured output, which `generateObject` sets.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings extends Omit<Session.Options<never>, "jsonSchema"> {}

/**
 * Per-request settings, merged over the layer's (see {@link withConfigOverride}).
 *
 * @since 0.1.0
 * @category services
 */
export class Config extends Context.Service<Config, Settings>()("effect-claude-code/ai/ClaudeCodeLanguageModel/Config") {}

/**
 * The provider's name, as `Model.ProviderName` gives it.
 *
 * @since 0.1.0
 * @category constants
 */
export const providerName = "claude-code"

/**
 * The key of this provider's part metadata ({@link RunMetadata}).
 *
 * @since 0.1.0
 * @category constants
 */
export const metadataKey = Translate.metadataKey

/**
 * What a run tells beyond the response parts, in the finish part's metadata under {@link metadataKey}: cost in
 * USD, session id, turns, duration, the permission denials, and the calls the response cannot carry as typed
 * tool calls ({@link UntypedCall}). The module augmentation below types it there, so
 * `finish.metadata["claude-code"]?.costUsd` needs no cast.
 *
 * @since 0.1.0
 * @category models
 */
export type RunMetadata = Translate.RunMetadata

/**
 * A call of a tool the request's toolkit does not declare, or with an input its parameters reject, and its
 * result (`null` while it has none).
 *
 * @since 0.1.0
 * @category models
 */
export type UntypedCall = Translate.UntypedCall

/**
 * The metadata of an `AiError` under {@link metadataKey}: the run's, when it ended badly; the tag of the
 * `ClaudeCliError` reason (`error`), when the CLI could not run or its output could not be read.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorMetadata = RunMetadata | { readonly error: string }

declare module "effect/ai/Response" {
  export interface FinishPartMetadata extends ProviderMetadata {
    readonly "claude-code"?: RunMetadata | null
  }
}

// The reasons this provider fails with (`AiError.reasonFromHttpStatus` gives the first four).
declare module "effect/ai/AiError" {
  export interface InvalidRequestErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface AuthenticationErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface RateLimitErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface InternalProviderErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface UnknownErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface StructuredOutputErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
  export interface InvalidOutputErrorMetadata extends ProviderMetadata {
    readonly "claude-code"?: ErrorMetadata | null
  }
}

/**
 * The name of the in-process MCP server that serves a request's toolkit: the model calls its tools as
 * `mcp__toolkit__<name>`.
 *
 * @since 0.1.0
 * @category constants
 */
export const toolkitServerName = "toolkit"

const toolkitPrefix = `mcp__${toolkitServerName}__`

// The toolkit a request was given, as given: a toolkit resolved elsewhere carries handlers the request's
// context may not have, and the provider options keep only the tools.
class RequestToolkit extends Context.Service<RequestToolkit, unknown>()(
  "effect-claude-code/ai/ClaudeCodeLanguageModel/RequestToolkit"
) {}

const isToolkit = (u: unknown): u is Toolkit.Any =>
  typeof u === "function" && "~effect/ai/Toolkit" in u

const isWithHandler = (u: unknown): u is Toolkit.WithHandler<Record<string, Tool.Any>> =>
  typeof u === "object" && u !== null && "handle" in u && "tools" in u

// The MCP server of the tools served: from handlers in context (a `Toolkit`), or from a resolved toolkit.
const toolkitServer = (
  served: ReadonlyArray<Tool.Any>,
  given: unknown,
  context: Context.Context<never>
): McpServer.McpServer<any> | Tool.Any => {
  if (isWithHandler(given) && !isToolkit(given)) {
    const names = new Set(served.map((tool) => tool.name))
    const tools = Object.fromEntries(Object.entries(given.tools).filter(([name]) => names.has(name)))
    // What `McpServer.toolkit` reads of a toolkit: its tools, and the handlers it resolves to.
    const resolved = Object.assign(Effect.succeed({ tools, handle: given.handle }), { tools })
    return McpServer.fromToolkit(toolkitServerName, resolved as unknown as Toolkit.Toolkit<Record<string, Tool.Any>>)
  }
  const unhandled = served.find((tool) => !context.mapUnsafe.has(tool.id))
  return unhandled ?? McpServer.fromToolkit(toolkitServerName, Toolkit.make(...served))
}
const module = "ClaudeCodeLanguageModel"

const join = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined ? a : `${a}\n\n${b}`

const cliFailure = (method: string) => (error: CliError.ClaudeCliError | SessionError.SessionError): AiError.AiError => {
  const tag = error.reason._tag
  const metadata = { [metadataKey]: { error: tag } }
  const description = error.message
  return AiError.make({
    module,
    method,
    reason: tag === "DecodeFailed" || tag === "LineTooLong" || tag === "MissingResult"
      ? new AiError.InvalidOutputError({ description, metadata })
      : new AiError.UnknownError({ description, metadata })
  })
}

// The JSON Schema the CLI is given is the one Anthropic's structured output takes; constraints it cannot say
// stay in the codec that decodes the answer.
const jsonSchemaOf = (schema: Schema.Top): Record<string, unknown> =>
  AnthropicStructuredOutput.toCodecAnthropic(schema as Schema.Codec<unknown, unknown>).jsonSchema as Record<string, unknown>

interface Request {
  readonly options: LanguageModel.ProviderOptions
  readonly method: "generateText" | "streamText"
  readonly streaming: boolean
}

// How a request maps onto Claude Code:
// - The prompt's system messages are appended to Claude Code's system prompt; a lone user message is the
//   turn's text, a longer history is written out before the last message.
// - Output becomes response parts: text, reasoning, the tool calls it made with their results
//   (provider-executed), the finish reason and usage; cost, session id and the calls of undeclared tools (or
//   with inputs their tools reject) go in the finish part's metadata under "claude-code" (`RunMetadata`).
// - Toolkit: its own tools (handlers from `toLayer`) are served as an in-process MCP server and allowed;
//   `ClaudeCodeTool`s join `allowedTools`. Handlers run inside Claude Code's loop, so calls come back
//   provider-executed.
// - `generateObject` passes the Schema as `--json-schema` and decodes `structured_output`.
// - Multi-turn: each instance tracks the sessions it answered from (`ResponseIdTracker`), so a `Chat`'s next
//   turn resumes the same session (`--resume`) and sends only the new messages.
// - Failures: an API error the CLI gave up on by its HTTP status, structured output that does not fit as
//   `StructuredOutputError`, a run that ends badly as `InternalProviderError`, unreadable output as
//   `InvalidOutputError`, a CLI that cannot run or dies as `UnknownError` (the `ClaudeCliError` reason in its
//   metadata). Max turns or budget reached is a "length" finish, not a failure.

/**
 * Builds the service over the `ClaudeCli` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: {
  readonly model?: string | undefined
  readonly config?: Settings | undefined
} = {}) {
  const cli = yield* ClaudeCli.ClaudeCli
  const tracker = yield* ResponseIdTracker.make
  const settings = Effect.map(Effect.serviceOption(Config), (override): Settings => ({
    ...(options.model === undefined ? {} : { model: options.model }),
    ...options.config,
    ...Option.getOrUndefined(override)
  }))

  const parts = ({ method, options, streaming }: Request): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
    Stream.unwrap(Effect.gen(function*() {
      const config = yield* settings
      const resumed = options.previousResponseId !== undefined && options.incrementalPrompt !== undefined
      // A resumed session gets only the new messages; the system messages are options of the process, given to each.
      const whole = yield* Prompt.render(options.prompt, module, method)
      const turn = resumed ? yield* Prompt.render(options.incrementalPrompt!, module, method) : whole
      const served = options.toolChoice === "none" ? [] : options.tools.filter(Tool.isUserDefined)
      const builtIns = options.tools.filter(ClaudeCodeTool.isClaudeCodeTool)
      const context = yield* Effect.context<never>()
      const server = served.length === 0
        ? undefined
        : toolkitServer(served, Option.getOrUndefined(Context.getOption(context, RequestToolkit)), context)
      if (server !== undefined && Tool.isUserDefined(server)) {
        return yield* AiError.make({
          module,
          method,
          reason: new AiError.ToolConfigurationError({
            toolName: server.name,
            description: "its handler is not in the context of the request (provide the toolkit's toLayer)"
          })
        })
      }
      const json = options.responseFormat.type === "json"
      const allowedTools = [
        ...(config.allowedTools ?? []),
        ...builtIns.map((tool) => tool.providerName),
        ...served.map((tool) => `${toolkitPrefix}${tool.name}`)
      ]
      const turnOptions: Session.Options<unknown> = {
        ...config,
        appendSystemPrompt: join(config.appendSystemPrompt, whole.system),
        allowedTools: allowedTools.length === 0 ? undefined : allowedTools,
        includePartialMessages: config.includePartialMessages ?? streaming,
        resume: resumed ? options.previousResponseId : config.resume,
        jsonSchema: options.responseFormat.type === "json" ? jsonSchemaOf(options.responseFormat.schema) : undefined
      }
      const translator = Translate.make({
        json,
        module,
        method,
        toolOf: (name) =>
          name.startsWith(toolkitPrefix)
            ? served.find((tool) => `${toolkitPrefix}${tool.name}` === name)
            : builtIns.find((tool) => tool.providerName === name)
      })
      const needsSession = server !== undefined || config.canUseTool !== undefined || config.hooks !== undefined ||
        (config.mcpServers?.length ?? 0) > 0
      const messages: Stream.Stream<Message, CliError.ClaudeCliError | SessionError.SessionError> =
        needsSession
          ? Stream.unwrap(Effect.map(
            cli.session({
              ...turnOptions,
              mcpServers: [
                ...(config.mcpServers ?? []),
                ...(server === undefined ? [] : [server as McpServer.McpServer<any>])
              ]
            }) as Effect.Effect<Session.Session, CliError.ClaudeCliError | SessionError.SessionError>,
            (session) => session.turn(turn.text)
          ))
          : cli.query(turn.text, turnOptions)
      return messages.pipe(
        Stream.mapError(cliFailure(method)),
        Partial.assemble,
        Stream.map((event) => {
          const out: Array<Response.StreamPartEncoded | AiError.AiError> = []
          const failure = translator.push(event, out as Array<Response.StreamPartEncoded>)
          if (failure !== undefined) out.push(failure)
          return out
        }),
        Stream.flattenIterable,
        Stream.mapEffect((part) => AiError.isAiError(part) ? Effect.fail(part) : Effect.succeed(part))
      )
    }))

  const model = yield* LanguageModel.make({
    codecTransformer: AnthropicStructuredOutput.toCodecAnthropic,
    generateText: (options) =>
      Effect.map(
        Stream.runCollect(parts({ options, method: "generateText", streaming: false })),
        (collected) => Translate.toParts(collected)
      ),
    streamText: (options) => parts({ options, method: "streamText", streaming: true })
  })
  // The instance's own tracker, unless the caller brought one: a Chat's next turn then resumes its session.
  const tracked = (context: Context.Context<any>): Context.Context<any> =>
    Option.isSome(Context.getOption(context, ResponseIdTracker.ResponseIdTracker))
      ? context
      : Context.add(context, ResponseIdTracker.ResponseIdTracker, tracker) as Context.Context<any>
  const requestContext = (o: { readonly toolkit?: unknown }) => (context: Context.Context<any>): Context.Context<any> =>
    o.toolkit === undefined ? tracked(context) : Context.add(tracked(context), RequestToolkit, o.toolkit)
  return LanguageModel.LanguageModel.of({
    ...model,
    generateText: ((o: any) => Effect.updateContext(model.generateText(o), requestContext(o))) as typeof model.generateText,
    generateObject: ((o: any) => Effect.updateContext(model.generateObject(o), requestContext(o))) as typeof model.generateObject,
    streamText: ((o: any) => Stream.updateContext(model.streamText(o), requestContext(o))) as typeof model.streamText
  })
})

/**
 * `LanguageModel` backed by Claude Code, over the `ClaudeCli` in context (`Live.layer()` for the real CLI,
 * `Scripted.layer(...)` in tests).
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { ClaudeCodeLanguageModel } from "effect-claude-code/ai"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = LanguageModel.generateText({ prompt: "Summarize README.md" }).pipe(
 *   Effect.provide(ClaudeCodeLanguageModel.layer({ model: "sonnet", config: { allowedTools: ["Read"] } })),
 *   Effect.provide(Live.layer())
 * )
 * ```
 */
export const layer = (options: {
  readonly model?: string | undefined
  readonly config?: Settings | undefined
} = {}): Layer.Layer<LanguageModel.LanguageModel, never, ClaudeCli.ClaudeCli> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The provider as an `effect/ai` `Model`, which also provides `Model.ProviderName` (`"claude-code"`) and
 * `Model.ModelName`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const model = <const Name extends string>(
  model: Name,
  config?: Omit<Settings, "model">
): AiModel.Model<typeof providerName, LanguageModel.LanguageModel, ClaudeCli.ClaudeCli> =>
  AiModel.make(providerName, model, layer({ model, config }))

/**
 * Runs an effect with settings merged over the layer's and any outer override, e.g. another permission mode
 * or working directory for one request.
 *
 * @since 0.1.0
 * @category configuration
 */
export const withConfigOverride: {
  (overrides: Settings): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Config>>
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: Settings): Effect.Effect<A, E, Exclude<R, Config>>
} = dual(
  2,
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: Settings): Effect.Effect<A, E, Exclude<R, Config>> =>
    Effect.flatMap(
      Effect.serviceOption(Config),
      (config) => Effect.provideService(self, Config, { ...Option.getOrUndefined(config), ...overrides })
    )
)
