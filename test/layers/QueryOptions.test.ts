import { assert, describe, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as QueryOptions from "../../src/QueryOptions.ts"

const base = ["-p", "--output-format", "stream-json", "--verbose", "--input-format", "text"]

describe("QueryOptions", () => {
  it("no options: only the stream-json flags, no max turns, no permission bypass", () => {
    assert.deepStrictEqual(QueryOptions.toArgs(), base)
  })

  it("maps every option to its flag", () => {
    const args = QueryOptions.toArgs({
      model: "sonnet",
      fallbackModel: ["opus", "haiku"],
      systemPrompt: "sys",
      appendSystemPrompt: "more",
      allowedTools: ["Read", "Bash(git *)"],
      disallowedTools: ["Write"],
      tools: [],
      permissionMode: "acceptEdits",
      maxTurns: 4,
      maxBudgetUsd: 0.5,
      includePartialMessages: true,
      settings: { a: 1 },
      settingSources: ["user", "project"],
      mcpConfig: ["mcp.json", { mcpServers: {} }],
      strictMcpConfig: true,
      addDirs: ["/a", "/b"],
      agents: { r: { description: "d", prompt: "p" } },
      resume: "abc",
      forkSession: true,
      sessionId: "00000000-0000-0000-0000-000000000000",
      jsonSchema: { type: "object" },
      extraArgs: ["--effort", "low"]
    })
    assert.deepStrictEqual(args, [
      ...base,
      "--model", "sonnet",
      "--fallback-model", "opus,haiku",
      "--system-prompt", "sys",
      "--append-system-prompt", "more",
      "--allowedTools", "Read,Bash(git *)",
      "--disallowedTools", "Write",
      "--tools", "",
      "--permission-mode", "acceptEdits",
      "--max-turns", "4",
      "--max-budget-usd", "0.5",
      "--include-partial-messages",
      "--settings", "{\"a\":1}",
      "--setting-sources", "user,project",
      "--mcp-config", "mcp.json",
      "--mcp-config", "{\"mcpServers\":{}}",
      "--strict-mcp-config",
      "--add-dir", "/a",
      "--add-dir", "/b",
      "--agents", "{\"r\":{\"description\":\"d\",\"prompt\":\"p\"}}",
      "--resume", "abc",
      "--fork-session",
      "--session-id", "00000000-0000-0000-0000-000000000000",
      "--json-schema", "{\"type\":\"object\"}",
      "--effort", "low"
    ])
  })

  it("bypassPermissions only when named", () => {
    assert.notInclude(QueryOptions.toArgs({ permissionMode: "plan" }).join(" "), "bypass")
    assert.notInclude(QueryOptions.toArgs({ permissionMode: "plan" }).join(" "), "dangerously")
    assert.include(QueryOptions.toArgs({ permissionMode: "bypassPermissions" }), "bypassPermissions")
  })

  it("redact hides secret env values everywhere", () => {
    const redacted = QueryOptions.redact({
      env: { ANTHROPIC_API_KEY: "sk-ant-xyz-1", HOME: "/tmp/h", OTHER: Redacted.make("hidden-1") },
      systemPrompt: "my key is sk-ant-xyz-1"
    })
    const text = JSON.stringify(redacted)
    assert.notInclude(text, "sk-ant-xyz-1")
    assert.notInclude(text, "hidden-1")
    assert.include(text, "/tmp/h")
  })
})
