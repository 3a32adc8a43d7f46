import { assert, describe, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as Redaction from "../../src/Redaction.ts"

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

  it("values that cannot be secrets are not: numbers, booleans and short values of secret-looking names", () => {
    const secrets = Redaction.secretValues({
      MAX_THINKING_TOKENS: "1024",
      SOME_TOKEN_RATIO: "-0.5e3",
      DISABLE_AUTH: "true",
      USE_AUTH: "off",
      MY_KEY: "abc",
      DB_PASSWORD: "hunter22",
      PLAIN: "not-a-secret-name",
      PIN: Redacted.make("1024")
    })
    assert.deepStrictEqual(secrets, ["hunter22", "1024"])
  })

  it("a secret is redacted as written and as written inside a JSON string", () => {
    const secret = "p\"w\\Secret-Value-123"
    const json = JSON.stringify({ text: `the password is ${secret}` })
    assert.strictEqual(Redaction.redactText(json, [secret]), JSON.stringify({ text: "the password is <redacted>" }))
    assert.strictEqual(Redaction.redactText(`raw ${secret}.`, [secret]), "raw <redacted>.")
  })

  it("redactJson keeps a line the same JSON: numbers and layout as written, strings redacted, escapes decoded", () => {
    const redact = Redaction.redactor(Redaction.secretValues({ PIN: Redacted.make("1024"), DB_PASSWORD: "s3cret-pass" }))
    const line = `{"n":1024,"t":"pin 1024","u":"\\u0073\\u0033cret-pass","k":"sk-ant-api03-${"a".repeat(20)}","x": 1.50}`
    const out = Redaction.redactJson(line, redact)
    assert.strictEqual(out, `{"n":1024,"t":"pin <redacted>","u":"<redacted>","k":"<redacted>","x": 1.50}`)
    const clean = `{"a":"nothing here","b":[1,2]}`
    assert.strictEqual(Redaction.redactJson(clean, redact), clean)
    assert.strictEqual(Redaction.redactJson("Warning: pin 1024", redact), "Warning: pin <redacted>")
  })

  it("at a cut edge, the part of a secret that straddles the cut is redacted, for every cut", () => {
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEYEXAMPLE"
    const redact = Redaction.redactor([secret])
    for (let k = 1; k < secret.length; k++) {
      assert.strictEqual(redact(`tail of ${secret.slice(0, k)}`, { end: true }), "tail of <redacted>", `end, ${k}`)
      assert.strictEqual(redact(`${secret.slice(k)} and the rest`, { start: true }), "<redacted> and the rest", `start, ${k}`)
    }
    // Without an edge, text that merely starts or ends like a secret is left alone.
    assert.strictEqual(redact("wJal and EXAMPLE"), "wJal and EXAMPLE")
  })

  it("at a cut edge, a key known only by its shape is redacted from its head (end) or as the leading run of key characters (start)", () => {
    const redact = Redaction.redactor([])
    assert.strictEqual(redact("the key sk-ant-api0", { end: true }), "the key <redacted>")
    assert.strictEqual(redact("the key AKIAIOSF", { end: true }), "the key <redacted>")
    assert.strictEqual(redact("the key sk", { end: true }), "the key sk")
    assert.strictEqual(redact("aaaa-bbbbbbAA\nnext line", { start: true }), "\nnext line")
  })
})
