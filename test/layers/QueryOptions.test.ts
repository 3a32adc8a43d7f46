import { assert, describe, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as DerivedOptions from "../../src/internal/queryOptions.ts"
import * as Redaction from "../../src/internal/redaction.ts"

const base = ["-p", "--output-format", "stream-json", "--verbose", "--input-format", "text"]

describe("QueryOptions", () => {
  it("no options: only the stream-json flags", () => {
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

  describe("redaction", () => {
    it("redact hides secret env values everywhere", () => {
      const redacted = DerivedOptions.redact({
        env: { ANTHROPIC_API_KEY: "sk-ant-xyz-1", HOME: "/tmp/h", OTHER: Redacted.make("hidden-1") },
        systemPrompt: "my key is sk-ant-xyz-1"
      })
      const text = JSON.stringify(redacted)
      assert.notInclude(text, "sk-ant-xyz-1")
      assert.notInclude(text, "hidden-1")
      assert.include(text, "/tmp/h")
    })

    it("redact hides values under secret keys anywhere in the options", () => {
      const token = "Bearer zq81KdL0p9Vw3xY7tR2m"
      const options: QueryOptions.QueryOptions = {
        mcpConfig: [
          { mcpServers: { api: { type: "http", url: "https://x.example/mcp", headers: { Authorization: token, "x-api-key": "Kq93-apikey-value" } } } },
          JSON.stringify({ mcpServers: { db: { command: "db-mcp", env: { DB_PASSWORD: "Hunter2-Hunter2" } } } })
        ],
        settings: { env: { SMTP_PASSWORD: "20231987", MAX_THINKING_TOKENS: "1024" }, model: "sonnet", cleanupPeriodDays: 30 },
        extraArgs: ["--api-key", "Zk93jdLq0PaQ7vB", "--token=Tk-0123456789", "--effort", "low"],
        appendSystemPrompt: "Use postgres://app:Tr0ub4dor-and-3@db/x and never say Zk93jdLq0PaQ7vB",
        env: { DATABASE_URL: "postgres://app:Tr0ub4dor-and-3@db/x", LANG: "C.UTF-8" }
      }
      const redacted = DerivedOptions.redact(options)
      const text = JSON.stringify(redacted)
      for (const secret of ["zq81KdL0p9Vw3xY7tR2m", "Kq93-apikey-value", "Hunter2-Hunter2", "20231987", "Zk93jdLq0PaQ7vB", "Tk-0123456789", "Tr0ub4dor-and-3"]) {
        assert.notInclude(text, secret)
      }
      const server = (redacted.mcpConfig as any)[0].mcpServers.api
      assert.deepStrictEqual(server.headers, { Authorization: "<redacted>", "x-api-key": "<redacted>" })
      assert.strictEqual(server.url, "https://x.example/mcp")
      assert.deepStrictEqual(redacted.settings, {
        env: { SMTP_PASSWORD: "<redacted>", MAX_THINKING_TOKENS: "1024" },
        model: "sonnet",
        cleanupPeriodDays: 30
      })
      assert.deepStrictEqual(redacted.extraArgs, ["--api-key", "<redacted>", "--token=<redacted>", "--effort", "low"])
      assert.deepStrictEqual(redacted.env, { DATABASE_URL: "postgres://app:<redacted>@db/x", LANG: "C.UTF-8" })
      assert.strictEqual(redacted.appendSystemPrompt, "Use postgres://app:<redacted>@db/x and never say <redacted>")
    })

    it("a variable is a secret by the words of its name", () => {
      const secret = (name: string, value: string) => Redaction.secretValues({ [name]: value }).includes(value)
      const secrets: ReadonlyArray<readonly [string, string]> = [
        ["DB_PASSWORD", "83746192017"],
        ["SMTP_PASSWORD", "20231987"],
        ["PIN_CODE_SECRET", "8472910365"],
        ["DB_PASS", "Hunter2Hunter2"],
        ["GPG_PASSPHRASE", "correct horse battery"],
        ["MYSQL_PWD", "s3cretPw0rd!"],
        ["SENTRY_DSN", "https://abcdef0123456789@o1.ingest.sentry.io/1"],
        ["DBPASSWORD", "qwerty-123"],
        ["authToken", "abcdef123456"],
        ["CLIENTSECRET", "cs-0123456789"],
        ["APIKEY", "k-0123456789"],
        ["SESSION_COOKIE", "s%3Aabc.def"],
        ["PRIVATE_KEY", "-----BEGIN KEY-----"],
        ["AWS_SESSION_TOKEN", "true-token-value"],
        // A setting's name with a value that is not a setting's.
        ["TOKEN_LIMIT", "abc123xyz99"],
        ["DISABLE_AUTH", "sk-live-0123"]
      ]
      for (const [name, value] of secrets) assert.isTrue(secret(name, value), `${name}=${value} is a secret`)
      const settings: ReadonlyArray<readonly [string, string]> = [
        ["MAX_THINKING_TOKENS", "1024"],
        ["SOME_TOKEN_RATIO", "-0.5e3"],
        ["DISABLE_AUTH", "true"],
        ["USE_AUTH", "off"],
        ["AUTH_TYPE", "bearer"],
        ["SESSION_TIMEOUT", "3600"],
        ["KEY_LENGTH", "2048"],
        ["SSH_AUTH_SOCK", "/tmp/ssh-XXXX/agent.123"],
        ["PASSWORD_FILE", "/run/secrets/db"],
        ["DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"],
        ["PWD", "/home/someone/project"],
        ["KEYBOARD_LAYOUT", "dvorak-programmer"],
        ["MONKEY_PATCH", "enabled-always"],
        ["TOKENIZERS_PARALLELISM", "false-ish"],
        ["MY_KEY", "abc12"],
        ["PLAIN", "not-a-secret-name"]
      ]
      for (const [name, value] of settings) assert.isFalse(secret(name, value), `${name}=${value} is not a secret`)
      assert.deepStrictEqual(Redaction.secretValues({ PIN: Redacted.make("1024") }), ["1024"], "a Redacted value always is")
      // Inherited variables need 8 characters.
      assert.deepStrictEqual(Redaction.environmentSecrets({ DB_PASSWORD: "abc1234" }, "replace"), ["abc1234"])
    })

    it("the credentials of URLs in any variable are secrets", () => {
      assert.deepStrictEqual(Redaction.secretValues({ DATABASE_URL: "postgres://app:Tr0ub4dor%2F3@db:5432/x" }), ["Tr0ub4dor%2F3", "Tr0ub4dor/3"])
      assert.deepStrictEqual(Redaction.secretValues({ ERRORS: "https://abcdef0123456789@o1.ingest.sentry.io/1" }), ["abcdef0123456789"])
      assert.deepStrictEqual(Redaction.secretValues({ REDIS: "redis://cache:6379/0?password=r3dis-pass&db=2" }), ["r3dis-pass"])
      assert.deepStrictEqual(Redaction.secretValues({ DATABASE_URL: "postgres://postgres@db/x", HOME: "/home/a" }), [])
      const redact = Redaction.redactor(Redaction.secretValues({ DATABASE_URL: "postgres://app:Tr0ub4dor-and-3@db:5432/x" }))
      assert.strictEqual(redact("cannot connect to postgres://app:Tr0ub4dor-and-3@db:5432/x"), "cannot connect to postgres://app:<redacted>@db:5432/x")
    })

    it("credentials inside a secret value or header line are secrets", () => {
      const token = "zq81KdL0p9Vw3xY7tR2m"
      const mcp: QueryOptions.QueryOptions = { mcpConfig: [{ mcpServers: { a: { type: "http", url: "https://x", headers: { Authorization: `Bearer ${token}` } } } }] }
      assert.includeMembers([...Redaction.optionSecrets(mcp)], [`Bearer ${token}`, token])
      const helper: QueryOptions.QueryOptions = { settings: { apiKeyHelper: `echo ${token}` } }
      assert.includeMembers([...Redaction.optionSecrets(helper)], [token])
      const headers = Redaction.secretValues({ ANTHROPIC_CUSTOM_HEADERS: `Authorization: Bearer ${token}\nx-api-key: k3y-${token}\nX-Trace: on` })
      assert.deepStrictEqual(headers, [`Bearer ${token}`, token, `k3y-${token}`])
      assert.deepStrictEqual(Redaction.secretValues({ GPG_PASSPHRASE: "correct horse battery staple" }), ["correct horse battery staple"])
      assert.strictEqual(Redaction.redactor(headers)(`401 invalid token ${token}`), "401 invalid token <redacted>")
    })

    it("a cut inside a multi-byte character shows no part of a secret", () => {
      const secret = "日本語のパスワード秘密です"
      const bytes = Buffer.from(secret)
      for (let b = 4; b < bytes.length; b++) {
        const text = "x: " + new TextDecoder().decode(bytes.subarray(0, b))
        assert.strictEqual(Redaction.redactor([secret])(text, { end: true }), "x: <redacted>", `${b} bytes`)
      }
    })

    it("a secret is redacted as written and as written inside a JSON string", () => {
      const secret = "p\"w\\Secret-Value-123"
      const json = JSON.stringify({ text: `the password is ${secret}` })
      assert.strictEqual(Redaction.redactText(json, [secret]), JSON.stringify({ text: "the password is <redacted>" }))
      assert.strictEqual(Redaction.redactText(`raw ${secret}.`, [secret]), "raw <redacted>.")
    })

    it("secrets spelled with other JSON escapes are redacted", () => {
      const aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEYEXAMPLE"
      const redact = Redaction.redactor([aws])
      const slashes = aws.replaceAll("/", "\\/")
      assert.strictEqual(redact(`{"warn":"${slashes}"`), `{"warn":"<redacted>"`)
      const key = `\\u0073k-ant-api03-${"a".repeat(20)}`
      assert.strictEqual(redact(`key: ${key} end`), "key: <redacted> end")
      const unicode = [...aws].map((c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")).join("")
      assert.strictEqual(redact(`[${unicode}]`), "[<redacted>]")
      // An escaped backslash before the letters is no escape of them.
      assert.strictEqual(redact("\\\\u0073k-ant-api03-aaaaaaaaaaaa"), "\\\\u0073k-ant-api03-aaaaaaaaaaaa")
      for (const spelling of [slashes, unicode]) {
        for (let k = 1; k < spelling.length; k++) {
          const end = redact(`tail ${spelling.slice(0, k)}`, { end: true })
          const start = redact(`${spelling.slice(k)} rest`, { start: true })
          // A cut inside the first escape shows no character of the secret: that cut escape is all there is.
          assert.match(end, /^tail (?:<redacted>|\\(?:u[0-9a-f]{0,3})?)$/, `end, ${k}`)
          // The marker takes at least its own length at a start: what follows it is the end of " rest".
          assert.isTrue(start.startsWith("<redacted>") && " rest".endsWith(start.slice(10)), `start, ${k}: ${start}`)
        }
      }
    })

    it("redactJson keeps a line the same JSON", () => {
      const redact = Redaction.redactor(Redaction.secretValues({ PIN: Redacted.make("1024"), DB_PASSWORD: "s3cret-pass" }))
      const line = `{"n":1024,"t":"pin 1024","u":"\\u0073\\u0033cret-pass","k":"sk-ant-api03-${"a".repeat(20)}","x": 1.50}`
      const out = Redaction.redactJson(line, redact)
      assert.strictEqual(out, `{"n":1024,"t":"pin <redacted>","u":"<redacted>","k":"<redacted>","x": 1.50}`)
      const clean = `{"a":"nothing here","b":[1,2]}`
      assert.strictEqual(Redaction.redactJson(clean, redact), clean)
      assert.strictEqual(Redaction.redactJson("Warning: pin 1024", redact), "Warning: pin <redacted>")
    })

    it("redactJson redacts a secret spelled with escapes", () => {
      const aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEYEXAMPLE"
      const redact = Redaction.redactor([aws])
      const line = `{"type":"assistant","text":"key=${aws.replaceAll("/", "\\/")}\\n","path":"a\\/b","n":1.0}`
      assert.strictEqual(Redaction.redactJson(line, redact), `{"type":"assistant","text":"key=<redacted>\\n","path":"a\\/b","n":1.0}`)
      const clean = `{"text":"line\\none \\u00e9 \\/ \\"quoted\\""}`
      assert.strictEqual(Redaction.redactJson(clean, redact), clean)
    })

    it("at a cut edge, a straddling secret is redacted", () => {
      const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEYEXAMPLE"
      const redact = Redaction.redactor([secret])
      for (let k = 1; k < secret.length; k++) {
        assert.strictEqual(redact(`tail of ${secret.slice(0, k)}`, { end: true }), "tail of <redacted>", `end, ${k}`)
        // At a start, the marker replaces at least its own length, so that a cut text never grows.
        const start = `${secret.slice(k)} and the rest`
        assert.strictEqual(redact(start, { start: true }), "<redacted>" + start.slice(Math.max(secret.length - k, 10)), `start, ${k}`)
      }
      // Without an edge, text that merely starts or ends like a secret is left alone.
      assert.strictEqual(redact("wJal and EXAMPLE"), "wJal and EXAMPLE")
    })

    it("at a cut edge, a key known by its shape is redacted", () => {
      const redact = Redaction.redactor([])
      assert.strictEqual(redact("the key sk-ant-api0", { end: true }), "the key <redacted>")
      assert.strictEqual(redact("the key AKIAIOSF", { end: true }), "the key <redacted>")
      assert.strictEqual(redact("the key sk", { end: true }), "the key sk")
      assert.strictEqual(redact("aaaa-bbbbbbAA\nnext line", { start: true }), "<redacted>\nnext line")
      assert.strictEqual(redact(": next line", { start: true }), ": next line")
    })
  })
})
