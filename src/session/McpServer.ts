/**
 * An MCP server that lives in the application, reached by the CLI through the control protocol's
 * `mcp_message` requests, like the official SDKs' `createSdkMcpServer`. The model calls its tools as
 * `mcp__<server>__<tool>`.
 *
 * Register an `effect/ai` `Toolkit` with {@link fromToolkit}, or tools made by {@link tool}, and pass the server
 * in the session's `mcpServers`.
 *
 * @since 0.1.0
 */
import * as AiMcpProtocol from "effect/ai/McpProtocol"
import * as AiMcpSchema from "effect/ai/McpSchema"
import * as AiMcpServer from "effect/ai/McpServer"
import type * as Toolkit from "effect/ai/Toolkit"
import type * as AiTool from "effect/ai/Tool"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as RpcMessage from "effect/rpc/RpcMessage"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as RpcServer from "effect/rpc/RpcServer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Callback from "./internal/callback.ts"
import { describe } from "./internal/describe.ts"
import * as Immutable from "./internal/immutable.ts"

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
   * with `InvalidResult`, which the server answers with an error result.
   */
  readonly call: (args: unknown) => Effect.Effect<ToolResult, Callback.InvalidResult, R>
}

/**
 * A server: a name the CLI knows it by, and the `effect/ai` `McpServer` registrations it serves, which need
 * the services `R` (provided by the session, from the context it was made in).
 *
 * @since 0.1.0
 * @category models
 */
export interface McpServer<R = never> {
  readonly name: string
  readonly version: string
  readonly registrations: Layer.Layer<never, never, R | AiMcpServer.McpServer>
}

/**
 * The services a tool (or a union of tools) needs.
 *
 * @since 0.1.0
 * @category models
 */
export type Services<T> = T extends Tool<infer R> ? R : never

const text = (value: string, isError = false): ToolResult => ({ content: [{ type: "text", text: value }], isError })

// The handler's value as a tool result, or why it cannot be one.
const toResult = (tool: string, value: unknown): Effect.Effect<ToolResult, Callback.InvalidResult> => {
  if (typeof value === "string") return Effect.succeed(text(value))
  if (typeof value !== "object" || value === null || !Array.isArray((value as ToolResult).content)) {
    return Effect.fail(new Callback.InvalidResult({ tool, detail: `returned ${Callback.kindOf(value)} where text or a ToolResult is due` }))
  }
  const problem = Callback.jsonProblem(value)
  return problem === undefined
    ? Effect.succeed(value as ToolResult)
    : Effect.fail(new Callback.InvalidResult({ tool, detail: `returned a result that cannot be written as JSON (${problem})` }))
}

// Where a connection reports a tool that could not answer; nowhere unless `connect` is given a `report`.
const Report = Context.Reference<(error: Callback.InvalidResult) => Effect.Effect<void>>(
  "effect-claude-code/session/McpServer/Report",
  { defaultValue: () => () => Effect.void }
)

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
                  new Callback.InvalidResult({ tool: name, detail: `returned ${Callback.kindOf(returned)} where an Effect is due` })
                )
              }
              return Effect.flatMap(Effect.exit(returned as Effect.Effect<unknown, unknown, R>), (exit) =>
                Exit.isSuccess(exit)
                  ? toResult(name, exit.value)
                  // The handler's own interruption: were the call withdrawn, nothing here would run.
                  : Cause.hasInterruptsOnly(exit.cause)
                  ? Effect.succeed(text(`${name} was interrupted before it answered`, true))
                  : Effect.succeed(text(`${name} failed: ${describe(exit.cause)}`, true)))
            })
        })
      )
  }
}

// Registers the tools of `tool` with effect/ai's server, so that they are listed and called like a toolkit's.
const register = <R>(tools: ReadonlyArray<Tool<R>>): Layer.Layer<never, never, R | AiMcpServer.McpServer> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* AiMcpServer.McpServer
    const context = yield* Effect.context<R>()
    const report = yield* Report
    for (const t of tools) {
      yield* registry.addTool({
        tool: new AiMcpSchema.Tool({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema as AiMcpSchema.Tool["inputSchema"]
        }),
        annotations: Context.empty(),
        handle: (payload) =>
          Effect.provideContext(t.call(payload ?? {}), context).pipe(
            // A tool that could not answer: the model gets an error result naming why, the session a report.
            Effect.catch((invalid) => Effect.as(report(invalid), text(invalid.message, true))),
            Effect.map((result) => new AiMcpSchema.CallToolResult(result as typeof AiMcpSchema.CallToolResult.Type))
          )
      })
    }
  }))

/**
 * A server of {@link tool}s.
 *
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
  registrations: register(tools)
})

/**
 * The services a toolkit's server needs: the handlers of its tools (`Toolkit.toLayer`) and what they need.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolkitServices<Tools extends Record<string, AiTool.Any>> = Exclude<
  AiMcpServer.ToolkitRequirements<Tools>,
  AiMcpServer.McpServer
>

/**
 * A server of an `effect/ai` `Toolkit`: the same tool definitions any Effect AI provider takes, with their
 * parameters, success and failure schemas and annotations (read-only, destructive, idempotent, open-world)
 * carried over by `effect/ai`'s `McpServer.toolkit`. The handlers come from the toolkit's `toLayer`.
 *
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 * import { ClaudeCli } from "effect-claude-code"
 * import { McpServer } from "effect-claude-code/session"
 *
 * const Tickets = Toolkit.make(Tool.make("ticket_status", {
 *   parameters: Schema.Struct({ id: Schema.String }),
 *   success: Schema.String
 * }))
 * const handlers = Tickets.toLayer({ ticket_status: ({ id }) => Effect.succeed(id === "ECC-1" ? "open" : "closed") })
 * const session = ClaudeCli.session({ mcpServers: [McpServer.fromToolkit("tickets", Tickets)] }).pipe(
 *   Effect.provide(handlers)
 * )
 * ```
 */
export const fromToolkit = <Tools extends Record<string, AiTool.Any>>(
  name: string,
  toolkit: Toolkit.Toolkit<Tools>,
  options: { readonly version?: string } = {}
): McpServer<ToolkitServices<Tools>> => ({
  name,
  version: options.version ?? "0.1.0",
  registrations: AiMcpServer.toolkit(toolkit) as Layer.Layer<never, never, ToolkitServices<Tools> | AiMcpServer.McpServer>
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
 * A running server, for one session: the reply to each message of the CLI's MCP client.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  readonly name: string
  /**
   * The JSON-RPC reply to one message. Notifications get an empty result at once, as the CLI expects an
   * answer to every `mcp_message` request.
   */
  readonly handle: (message: JsonRpcMessage) => Effect.Effect<Record<string, unknown>>
}

const serialization = RpcSerialization.jsonRpc()

// Every stateful revision, so that the CLI's `initialize` negotiates the one it speaks.
const protocols = [
  AiMcpProtocol.v2025_11_25,
  AiMcpProtocol.v2025_06_18,
  AiMcpProtocol.v2025_03_26,
  AiMcpProtocol.v2024_11_05
] as const

const keyOf = (id: unknown): string => JSON.stringify(id)

const replies = (encoded: string): ReadonlyArray<Record<string, unknown>> => {
  const parsed: unknown = JSON.parse(encoded)
  return (Array.isArray(parsed) ? parsed : [parsed]) as ReadonlyArray<Record<string, unknown>>
}

/**
 * Starts `effect/ai`'s `McpServer` with the server's registrations over an in-process transport; it runs
 * until the Scope closes. Replies the server sends on its own (notifications, requests to the client) have
 * no way back through the control protocol and are dropped. A {@link tool} whose handler returns no Effect,
 * `undefined` or a result that cannot be written as JSON is answered with an error result the model sees, and
 * given to `report` (a session reports it as `CallbackFailed` on `Session.errors`).
 *
 * @since 0.1.0
 * @category running
 */
export const connect = <R>(
  server: McpServer<R>,
  report: (error: Callback.InvalidResult) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<Connection, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const incoming = yield* Queue.unbounded<string>()
    // The requests that wait for the server's reply, by id.
    const waiting = yield* Ref.make<ReadonlyMap<string, Deferred.Deferred<Record<string, unknown>>>>(new Map())
    const forget = (key: string) => Ref.modify(waiting, (all) => Immutable.take(all, key))
    const transport = RpcServer.Protocol.make(Effect.fnUntraced(function*(writeRequest) {
      const parser = serialization.makeUnsafe()
      yield* Queue.take(incoming).pipe(
        Effect.flatMap((frame) =>
          Effect.forEach(
            parser.decode(frame) as ReadonlyArray<RpcMessage.FromClientEncoded>,
            (message) => writeRequest(0, message),
            { discard: true }
          )
        ),
        Effect.forever,
        Effect.forkScoped
      )
      return {
        disconnects: yield* Queue.make<number>(),
        send: (_clientId, response) =>
          Effect.suspend(() => {
            const encoded = parser.encode(response)
            return Effect.forEach(
              typeof encoded === "string" ? replies(encoded) : [],
              (reply) =>
                Effect.flatMap(forget(keyOf(reply.id)), (deferred) =>
                  deferred === undefined ? Effect.void : Deferred.succeed(deferred, reply)),
              { discard: true }
            )
          }),
        end: () => Effect.void,
        clientIds: Effect.succeed(new Set([0])),
        initialMessage: Effect.succeedNone,
        supportsAck: false,
        supportsTransferables: false,
        supportsSpanPropagation: false,
        supportsNotifications: true,
        codecFor: serialization.codecFor
      }
    }))
    yield* Layer.build(
      AiMcpServer.layer({
        name: server.name,
        version: server.version,
        protocols,
        registrations: server.registrations as Layer.Layer<never, never, AiMcpServer.McpServer>
      }).pipe(Layer.provide(Layer.effect(RpcServer.Protocol, transport)))
    ).pipe(Effect.provideService(Report, report), Effect.orDie)
    const notify = (message: JsonRpcMessage) => Queue.offer(incoming, JSON.stringify(message))
    const request = (message: JsonRpcMessage): Effect.Effect<Record<string, unknown>> => {
      const key = keyOf(message.id)
      return Effect.gen(function*() {
        const deferred = yield* Deferred.make<Record<string, unknown>>()
        yield* Ref.update(waiting, (all) => new Map(all).set(key, deferred))
        yield* Queue.offer(incoming, JSON.stringify(message))
        return yield* Deferred.await(deferred)
      }).pipe(Effect.onInterrupt(() =>
        // The handler stops with its caller (a callback deadline, the session's end).
        Effect.andThen(
          forget(key),
          notify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: message.id } })
        )
      ))
    }
    // A client that calls before its handshake (the CLI always shakes hands first) gets one made for it, so
    // that the server's lifecycle holds whatever order the messages come in.
    const initialized = yield* Ref.make(false)
    const handshake = yield* Effect.cached(Effect.flatMap(Ref.get(initialized), (done) =>
      done ? Effect.void : request({
        jsonrpc: "2.0",
        id: "effect-claude-code/initialize",
        method: "initialize",
        params: { protocolVersion: protocols[1].protocolVersion, capabilities: {}, clientInfo: { name: "claude", version: "0" } }
      }).pipe(Effect.andThen(notify({ jsonrpc: "2.0", method: "notifications/initialized" })))
    ))
    const handle = (message: JsonRpcMessage): Effect.Effect<Record<string, unknown>> => {
      if (message.id === undefined || message.id === null || message.method === undefined) {
        return Effect.as(notify(message), { jsonrpc: "2.0", id: message.id ?? 0, result: {} })
      }
      if (message.method === "initialize") return Effect.andThen(Ref.set(initialized, true), request(message))
      return Effect.andThen(handshake, request(message))
    }
    return { name: server.name, handle }
  }) as Effect.Effect<Connection, never, Scope.Scope | R>
