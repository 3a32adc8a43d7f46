import { describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, setup } from "./support/Real.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>

describe("explore", () => {
  it.live("control requests", () =>
    run(Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hello"), Script.turn("again")])
      const session = yield* Session.make({ ...base, enableFileCheckpointing: true, thinking: { type: "adaptive" }, effort: "high", betas: ["context-1m-2025-08-07"], includeHookEvents: true, title: "t", promptSuggestions: false, controlTimeout: "5 seconds" })
      const out: Record<string, unknown> = { init: session.rawInitialization }
      yield* collect(session.turn("hi"))
      const reqs: Array<Record<string, unknown> & { subtype: string }> = [
        { subtype: "mcp_status" }, { subtype: "get_context_usage" }, { subtype: "get_usage" }, { subtype: "get_session_cost" },
        { subtype: "list_models" }, { subtype: "get_binary_version" }, { subtype: "get_settings" }, { subtype: "get_hooks_listing" },
        { subtype: "list_permission_rules" }, { subtype: "reload_plugins" }, { subtype: "reload_skills" }, { subtype: "reload_output_styles" },
        { subtype: "background_tasks" }, { subtype: "get_task_output", task_id: "nope" }, { subtype: "stop_task", task_id: "nope" },
        { subtype: "set_max_thinking_tokens", max_thinking_tokens: 1234 }, { subtype: "apply_flag_settings", settings: { model: "haiku" } },
        { subtype: "rename_session", title: "new title", source: "host" }, { subtype: "rewind_files", user_message_id: "00000000-0000-0000-0000-000000000000", dry_run: true },
        { subtype: "mcp_set_servers", servers: {} }, { subtype: "mcp_reconnect", serverName: "x" }, { subtype: "mcp_toggle", serverName: "x", enabled: false },
        { subtype: "mcp_read_resource", server: "x", uri: "a://b" }, { subtype: "read_file", path: "/etc/hostname" }, { subtype: "seed_read_state", path: "/etc/hostname", mtime: 1 },
        { subtype: "file_suggestions", query: "a" }, { subtype: "cancel_async_message", message_uuid: "00000000-0000-0000-0000-000000000000" },
        { subtype: "set_color", color: "red" }, { subtype: "set_has_subscribers", has_subscribers: true }, { subtype: "register_repo_root", path: "/tmp" },
        { subtype: "mcp_call", server_name: "x", tool_name: "y", arguments: {} },
        { subtype: "update_settings", source: "localSettings", settings: { x: 1 } }
      ]
      for (const r of reqs) {
        out[r.subtype] = yield* Effect.exit(session.request(r, { timeout: "5 seconds" })).pipe(Effect.map((e) => e._tag === "Success" ? e.value : String(e.cause)))
      }
      fs.writeFileSync("/tmp/sdkx/explore.json", JSON.stringify(out, null, 1))
    })), 120_000)
})
describe("explore2", () => {
  it.live("bodies", () =>
    run(Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("hello"), Script.turn("again")])
      const Sch = yield* Effect.promise(() => import("effect/Schema"))
      const McpServer = yield* Effect.promise(() => import("../../src/session/McpServer.ts"))
      const calc = McpServer.make("calc", [McpServer.tool("add", "Adds", Sch.Struct({ a: Sch.Number }), () => Effect.succeed("x"))])
      const session = yield* Session.make({ ...base, mcpServers: [calc], model: process.env.XMODEL })
      yield* collect(session.turn("hi"))
      yield* (session as any).toggleMcpServer("calc", false)
      yield* collect(session.turn("hi2"))
      const reqs = yield* server.requests
      fs.writeFileSync("/tmp/sdkx/bodies.json", JSON.stringify(reqs.map((r: any) => ({ kind: r.kind, keys: Object.keys(r.body ?? {}), thinking: r.body?.thinking, tools: (r.body?.tools ?? []).map((t: any) => t.name), mcp: JSON.stringify(r.body).indexOf("mcp__calc__add"), rest: Object.fromEntries(Object.entries(r.body ?? {}).filter(([k]) => !["messages","system","tools"].includes(k))), sys: [...JSON.stringify(r.body).matchAll(/mcp__calc__add/g)].map((m) => JSON.stringify(r.body).slice(m.index - 300, m.index + 100)), headers: r.headers })), null, 1))
    })), 120_000)
})
