/**
 * Answers the requests the CLI sends a session: `can_use_tool` through the permission callback,
 * `hook_callback` through the registered hooks, `mcp_message` through the in-process MCP servers. Any other
 * request (or one for a callback or server that does not exist) is answered with an error, never ignored.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Hooks from "./Hooks.ts"
import * as McpServer from "./McpServer.ts"
import * as Permission from "./Permission.ts"
import * as Protocol from "./Protocol.ts"

/**
 * What a session answers with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callbacks {
  readonly canUseTool?: Permission.CanUseTool | undefined
  readonly hooks: Hooks.Registration
  readonly mcpServers?: ReadonlyArray<McpServer.McpServer> | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const handler = (callbacks: Callbacks): Protocol.Handler => (request) => {
  switch (request._tag) {
    case "CanUseToolRequest":
      return callbacks.canUseTool === undefined
        ? Effect.fail(new Error("no canUseTool callback is registered"))
        : Permission.decide(callbacks.canUseTool, request)
    case "HookCallbackRequest":
      return Hooks.run(callbacks.hooks, request)
    case "McpMessageRequest": {
      const server = callbacks.mcpServers?.find((s) => s.name === request.server_name)
      return server === undefined
        ? Effect.fail(new Error(`unknown MCP server ${request.server_name}`))
        : Effect.map(McpServer.handle(server, request.message as McpServer.JsonRpcMessage), (mcp_response) => ({ mcp_response }))
    }
    default:
      return Effect.fail(new Protocol.UnsupportedRequest({ subtype: request.subtype }))
  }
}
