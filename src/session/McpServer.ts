/**
 * An MCP server that lives in the application: tools with Effect Schema inputs and Effect handlers, reached
 * by the CLI through the control protocol's `mcp_message` requests (JSON-RPC `initialize`, `tools/list`,
 * `tools/call`), like the official SDKs' `createSdkMcpServer`. The model calls it as `mcp__<server>__<tool>`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Callback from "./internal/callback.ts"
import { describe } from "./internal/describe.ts"

/**
 * A tool result as MCP shapes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly content: ReadonlyArray<Readonly<Record<string, unknown>> & { readonly type: string }>
  readonly isError?: boolean | undefined
}

/**
 * A tool whose handler needs the services `R` (provided by the session, from the context it was made in).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<R = never> {
  readonly name: string
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
  /**
   * Decodes the arguments and runs the handler. Its errors become `isError` results; a handler that returns
   * no Effect, or a result that is neither text nor a {@link ToolResult} or cannot be written as JSON, fails
   * with {@link InvalidResult}.
   */
  readonly call: (args: unknown) => Effect.Effect<ToolResult, InvalidResult, R>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpServer<R = never> {
  readonly name: string
  readonly version: string
  readonly tools: ReadonlyArray<Tool<R>>
}

/**
 * The services a tool (or a union of tools) needs.
 *
 * @since 0.1.0
 * @category models
 */
export type Services<T> = T extends Tool<infer R> ? R : never

const text = (value: string, isError = false): ToolResult => ({ content: [{ type: "text", text: value }], isError })

/**
 * A tool's handler returned what cannot be a tool result: no Effect, `undefined`, a value that cannot be
 * written as JSON. The session answers the CLI with an error result naming it and reports it.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidResult extends Schema.TaggedError<InvalidResult>()("InvalidResult", {
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `the MCP tool "${this.tool}" ${this.detail}`
  }
}

// The handler's value as a tool result, or why it cannot be one.
const toResult = (tool: string, value: unknown): Effect.Effect<ToolResult, InvalidResult> => {
  if (typeof value === "string") return Effect.succeed(text(value))
  if (typeof value !== "object" || value === null || !Array.isArray((value as ToolResult).content)) {
    return Effect.fail(new InvalidResult({ tool, detail: `returned ${Callback.kindOf(value)} where text or a ToolResult is due` }))
  }
  const problem = Callback.jsonProblem(value)
  return problem === undefined
    ? Effect.succeed(value as ToolResult)
    : Effect.fail(new InvalidResult({ tool, detail: `returned a result that cannot be written as JSON (${problem})` }))
}

/**
 * The `tools/call` answer of a tool that could not answer: an error result the model sees.
 *
 * @since 0.1.0
 * @category constructors
 */
export const errorResult = (message: string): ToolResult => text(message, true)

/**
 * A tool. The handler returns text or a full {@link ToolResult}; its failures and defects are answered as
 * error results, so the model sees what went wrong.
 *
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { McpServer } from "effect-claude-code/session"
 *
 * const add = McpServer.tool("add", "Adds two numbers", Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   ({ a, b }) => Effect.succeed(String(a + b)))
 * const server = McpServer.make("calc", [add])
 * ```
 */
export const tool = <S extends Schema.Codec<any, any, never, never>, R = never>(
  name: string,
  description: string,
  input: S,
  handler: (input: S["Type"]) => Effect.Effect<string | ToolResult, unknown, R>
): Tool<R> => {
  const document = Schema.toJsonSchemaDocument(input)
  const inputSchema = Object.keys(document.definitions).length > 0
    ? { ...document.schema, $defs: document.definitions }
    : document.schema
  const decode = Schema.decodeUnknownEffect(input)
  return {
    name,
    description,
    inputSchema,
    call: (args) =>
      decode(args).pipe(
        Effect.matchEffect({
          onFailure: (issue) => Effect.succeed(text(`Invalid input for ${name}: ${issue.message}`, true)),
          onSuccess: (value) =>
            Effect.suspend(() => {
              let returned: unknown
              try {
                returned = handler(value)
              } catch (error) {
                returned = Effect.die(error)
              }
              if (!Effect.isEffect(returned)) {
                return Effect.fail(
                  new InvalidResult({ tool: name, detail: `returned ${Callback.kindOf(returned)} where an Effect is due` })
                )
              }
              return Effect.flatMap(Effect.exit(returned as Effect.Effect<unknown, unknown, R>), (exit) =>
                Exit.isSuccess(exit)
                  ? toResult(name, exit.value)
                  : Cause.hasInterruptsOnly(exit.cause)
                  ? Effect.interrupt
                  : Effect.succeed(text(`${name} failed: ${describe(exit.cause)}`, true)))
            })
        })
      )
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Tools extends ReadonlyArray<Tool<any>>>(
  name: string,
  tools: Tools,
  options: { readonly version?: string } = {}
): McpServer<Services<Tools[number]>> => ({
  name,
  version: options.version ?? "0.1.0",
  tools
})

/**
 * A JSON-RPC message from the CLI's MCP client.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonRpcMessage {
  readonly jsonrpc?: string | undefined
  readonly id?: string | number | null | undefined
  readonly method?: string | undefined
  readonly params?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A JSON-RPC reply to the message with `id`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const reply = (id: JsonRpcMessage["id"], body: Record<string, unknown>): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id: id ?? 0,
  ...body
})

/**
 * The JSON-RPC reply to one message. Notifications get an empty result, as the CLI expects an answer to every
 * `mcp_message` request; unknown methods get a JSON-RPC "method not found" error.
 *
 * @since 0.1.0
 * @category running
 */
export const handle = <R>(
  server: McpServer<R>,
  message: JsonRpcMessage
): Effect.Effect<Record<string, unknown>, InvalidResult, R> => {
  switch (message.method) {
    case "initialize":
      return Effect.succeed(reply(message.id, {
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: server.name, version: server.version }
        }
      }))
    case "tools/list":
      return Effect.succeed(reply(message.id, {
        result: {
          tools: server.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
        }
      }))
    case "tools/call": {
      const name = message.params?.name
      const found = server.tools.find((t) => t.name === name)
      if (found === undefined) {
        return Effect.succeed(reply(message.id, { error: { code: -32602, message: `Unknown tool: ${String(name)}` } }))
      }
      return Effect.map(found.call(message.params?.arguments ?? {}), (result) => reply(message.id, { result }))
    }
    default:
      return Effect.succeed(
        message.method?.startsWith("notifications/") === true || message.method === undefined
          ? reply(message.id, { result: {} })
          : reply(message.id, { error: { code: -32601, message: `Method not found: ${message.method}` } })
      )
  }
}
