/**
 * Secrets never leave through errors, logs, spans or recordings: a CLI that echoes the secrets of its
 * environment (given in the query, in the layer, inherited from the parent, or merely key-shaped) to
 * stdout and stderr, and the real CLI with an API key. Permission bypass is never a default. Titles read
 * "<case>: <defined behaviour>".
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Recording from "../../src/layers/Recording.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as Redaction from "../../src/internal/redaction.ts"
import { DecodeError, InvalidJson, make as decodeError } from "../../src/stream/DecodeError.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import * as Script from "../../src/testing/Script.ts"
import { reasonOf, runToEnd, tempDir } from "../layers/support.ts"
import { errorText, exitText, observed } from "./support/observed.ts"
import * as Hostile from "./support/hostile.ts"
import { afterAGoodLine } from "./support/faults.ts"
import * as Secrets from "./support/secrets.ts"
import * as Straddle from "./support/straddle.ts"
import * as SessionArgs from "../../src/session/internal/options.ts"
import * as CliErrorRedaction from "../../src/internal/cliErrorRedaction.ts"

const names = Object.keys(Secrets.known) as Array<keyof typeof Secrets.known>
const credentialNames = Object.keys(Secrets.credentials)
const providerNames = Object.keys(Secrets.providerTokens)
const root = path.resolve(import.meta.dirname, "../..")
const main = path.join(root, "src", "cli", "main.ts")

// Every planted secret by the variable it is given in, plus a password a JSON line has to escape, a
// numeric one and a passphrase with spaces.
const straddled: ReadonlyArray<readonly [string, string]> = [
  ...names.map((name) => [name, Secrets.known[name]] as const),
  [Secrets.shaped.name, Secrets.shaped.value],
  // Known by their shape alone: a cut shows no secret once past the head that tells the format.
  ...Object.keys(Secrets.providerHeads).map((name) => [name, Secrets.providerTokens[name as keyof typeof Secrets.providerTokens]] as const),
  ["DB_PASSWORD", "p\"w\\Secret-Value-123"],
  ["DB_PASSWORD", Secrets.credentials.DB_PASSWORD],
  ["GPG_PASSPHRASE", Secrets.credentials.GPG_PASSPHRASE],
  // Characters of two, three and four UTF-8 bytes: a cut can fall inside one.
  ["SMTP_PASS", "pässwörd-ÄÖÜ-geheim-ß"],
  ["DB_PASSWORD", "日本語のパスワード秘密です"],
  ["VAULT_TOKEN", "s3cr3t😀🔑pass-x"]
]

const aws = Secrets.known.AWS_SECRET_ACCESS_KEY
const apiKey = Secrets.known.ANTHROPIC_API_KEY

const assertClean = (text: string, where: string) =>
  assert.deepStrictEqual(Secrets.foundIn(text), [], `${where} contains a secret`)

/**
 * Runs the leaking CLI strictly and leniently and returns everything but the messages as text: errors,
 * in-band DecodeErrors, logs and spans.
 */
const leak = (config: Live.Config, options: QueryOptions.QueryOptions, variables: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    let text = ""
    for (const ending of ["exit 3", "exit 0"] as const) {
      const layer = Live.layer({ ...config, executable: Secrets.leakyCli(ending, variables) })
      const [strict, strictLog] = yield* observed(runToEnd(Stream.provide(ClaudeCli.query("hi", options), layer)))
      const [lenient, lenientLog] = yield* observed(runToEnd(Stream.provide(ClaudeCli.query("hi", { ...options, onBadLine: "emit" }), layer)))
      // The CLI did leak: the init message (the user's own data) carries the values.
      const init = lenient.items[0]
      assert.isTrue(init !== undefined && !(init instanceof DecodeError) && init._tag === "SystemInit", ending)
      assert.isNotEmpty(Secrets.foundIn(JSON.stringify(init)), "the values reached the CLI")
      assert.strictEqual(strict.exit._tag, "Failure", `${ending}: strict fails at the plain-text line`)
      const inBand = lenient.items.filter((item) => item instanceof DecodeError)
      assert.isNotEmpty(inBand, `${ending}: the plain-text line is an in-band error`)
      text += [exitText(strict.exit), exitText(lenient.exit), ...inBand.map(errorText), strictLog, lenientLog].join("\n")
      if (ending === "exit 3") assert.include(exitText(lenient.exit), "ProcessExited")
    }
    assert.include(text, "<redacted>", "redaction happened")
    return text
  })

const withParentEnv = <A, E, R>(vars: Readonly<Record<string, string>>, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
      Object.assign(process.env, vars)
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k]
          else process.env[k] = v
        }
      })
  )

describe("Secrets", () => {
  afterAll(Secrets.removeAll)

  describe("credentials in the query's env, echoed by the CLI", () => {
    // ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN on stdout
    // and stderr: in no stderr tail, raw cut, cut line, in-band DecodeError, log or span.
    it.live("in no error, log or span", () =>
      Effect.gen(function*() {
        assertClean(yield* leak({}, { env: Secrets.known }, names), "the run")
      }))
  })

  describe("secrets in the layer's env as Redacted values, echoed", () => {
    it.live("redacted the same", () =>
      Effect.gen(function*() {
        const env = Object.fromEntries(names.map((n) => [n, Redacted.make(Secrets.known[n])]))
        assertClean(yield* leak({ env }, {}, names), "the run")
      }))
  })

  describe("secrets inherited from the parent's environment, echoed", () => {
    // envMode merge.
    it.live("redacted the same", () =>
      Effect.gen(function*() {
        assertClean(yield* withParentEnv(Secrets.known, leak({}, {}, names)), "the run")
      }))
  })

  describe("a key-shaped value under a plain name, echoed", () => {
    // sk-ant-... under a name that does not look secret.
    it.live("redacted the same", () =>
      Effect.gen(function*() {
        const text = yield* leak({}, { env: { [Secrets.shaped.name]: Secrets.shaped.value } }, [Secrets.shaped.name])
        assertClean(text, "the run")
        assert.strictEqual(Redaction.redactText(`key ${Secrets.shaped.value}.`, []), "key <redacted>.")
      }))
  })

  describe("credentials known only by their variable's name, echoed", () => {
    // Numeric passwords (DB_PASSWORD=83746192017), a passphrase, DB_PASS, MYSQL_PWD, a DATABASE_URL's password, a
    // SENTRY_DSN's key; on stdout and stderr, also as in-band DecodeErrors.
    it.live("in no error, log or span", () =>
      Effect.gen(function*() {
        assertClean(yield* leak({}, { env: Secrets.credentials }, credentialNames), "the run")
      }))
  })

  describe("provider tokens inherited under names outside the word list, echoed", () => {
    // MY_SERVICE_PAT=github_pat_..., JWT=eyJ..., X_HF=hf_..., SLACK_WEBHOOK_URL=https://hooks.slack.com/..., and
    // the other providers' formats: known by their shape alone.
    it.live("in no error, log or span", () =>
      Effect.gen(function*() {
        assertClean(yield* withParentEnv(Secrets.providerTokens, leak({}, {}, providerNames)), "the run")
      }))
  })

  describe("provider tokens and named credentials in bad lines and the environment, through the bin", () => {
    // view and stats of a file whose bad lines hold them (plain text, wrong types, unknown subtypes), and run with
    // a CLI that echoes them, all with them in the bin's environment.
    it.live("never printed by view, stats or run", () =>
      Effect.gen(function*() {
        const values = [...Object.values(Secrets.providerTokens), ...Object.values(Secrets.credentials)]
        const file = afterAGoodLine(yield* tempDir("bin-secrets-"), values.flatMap((v) => [
          `Error: auth failed for ${v}`,
          JSON.stringify({ type: "assistant", message: v }),
          JSON.stringify({ type: "result", subtype: v })
        ]))
        const env = { ...process.env, ...Secrets.providerTokens, ...Secrets.credentials }
        const bin = (args: ReadonlyArray<string>) => {
          const run = childProcess.spawnSync(process.execPath, [main, ...args], { cwd: root, env, encoding: "utf8", timeout: 60_000 })
          assert.include(run.stdout + run.stderr, "<redacted>", args.join(" "))
          return run
        }
        for (const args of [["view", file], ["stats", file], ["stats", "--format", "json", file]]) {
          const run = bin(args)
          assertClean(run.stdout + run.stderr, args.join(" "))
        }
        const cli = Secrets.leakyCli("exit 3", [...providerNames, ...credentialNames])
        const run = bin(["run", "hi", "--claude", cli])
        assert.strictEqual(run.status, 5, run.stderr)
        assertClean(run.stderr, "run's errors")
      }), 120_000)
  })

  describe("the real CLI echoing credentials and settings in a Bash tool, recorded", () => {
    // On the scripted server, running env; settings under secret words (APP_MAX_TOKENS=1024, APP_DISABLE_AUTH=true) show
    // as they are; no credential in the recording, its metadata, an error, a log or a span.
    it.live("no credential anywhere; settings shown as they are", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-env-")
        const file = path.join(dir, "run.jsonl")
        const layer = Scripted.layer(
          Script.make([Script.turn(Script.toolUse("Bash", { command: "env | sort" })), Script.turn("Done.")]),
          { env: { ...Secrets.credentials, ...Secrets.settings } }
        )
        const [run, log] = yield* observed(
          runToEnd(ClaudeCli.query("Show the environment", { onBadLine: "emit", allowedTools: ["Bash"] })).pipe(
            Effect.provide(Recording.layer(file)(layer)),
            Effect.orDie
          )
        )
        assert.strictEqual(run.exit._tag, "Success", exitText(run.exit))
        const recorded = fs.readFileSync(file, "utf8")
        assert.include(recorded, "DB_PASSWORD=<redacted>", "the Bash tool printed the environment")
        assert.include(recorded, "DATABASE_URL=postgres://app:<redacted>@db:5432/x")
        assert.include(recorded, "APP_MAX_TOKENS=1024")
        assert.include(recorded, "APP_DISABLE_AUTH=true")
        assertClean(recorded, "the recording")
        assertClean(fs.readFileSync(Recording.metadataPath(file), "utf8"), "the recording's metadata")
        assert.isNotEmpty(Secrets.foundIn(JSON.stringify(run.items)), "the messages (the user's own data) hold them")
        assertClean(log, "logs and spans")
      }))
  })

  describe("a CLI that cannot be started, secrets in env and MCP header", () => {
    // Not executable; the API key in the env and an MCP header, for a query and a session; message, description and cause chain.
    it.live("the error holds no secret", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-spawn-")
        const executable = path.join(dir, "claude")
        fs.writeFileSync(executable, "#!/bin/sh\n", { mode: 0o644 })
        const header = "zq81KdL0p9Vw3xY7tR2mAb4C"
        const server = (key: string) => ({ mcpServers: { api: { type: "http", url: "https://mcp.example", headers: { "x-api-key": key } } } })
        const layer = Live.layer({ executable })
        const query = yield* runToEnd(Stream.provide(
          ClaudeCli.query("hi", { env: { ANTHROPIC_API_KEY: apiKey }, mcpConfig: [server(apiKey), server(header)] }),
          layer
        ))
        const session = yield* ClaudeCli.session({ env: { ANTHROPIC_API_KEY: apiKey }, mcpConfig: [server(apiKey), server(header)] }).pipe(
          Effect.scoped,
          Effect.flip,
          Effect.provide(layer)
        )
        for (const [what, text] of [["query", exitText(query.exit)], ["session", errorText(session)]] as const) {
          assert.include(text, "SpawnFailed", what)
          assert.include(text, "<redacted>", `${what}: the arguments are shown, redacted`)
          assertClean(text, what)
          assert.notInclude(text, header, what)
        }
      }))
  })

  describe("every reason of ClaudeCliError holding secrets", () => {
    // Secrets in each text and in the cause (an Error chain, a DecodeError, a cut line); an error without one is returned as it is.
    it.effect("ClaudeCliError.redact leaves none, keeps the cause's type", () =>
      Effect.sync(() => {
        const secret = Secrets.credentials.DB_PASS
        const redact = Redaction.redactor([secret])
        const spawnError = Object.assign(new Error(`spawn /bin/claude --api-key ${secret} EACCES`), {
          spawnargs: ["--api-key", secret],
          cause: new Error(`inner ${secret}`)
        })
        const badLine = decodeError(new InvalidJson({ line: 2, raw: `pw ${secret}`, detail: "not JSON" }))
        const reasons: ReadonlyArray<CliError.Reason> = [
          new CliError.ExecutableNotFound({ executable: `/opt/${secret}/claude` }),
          new CliError.SpawnFailed({ executable: "claude", description: `EACCES ${secret}`, cause: spawnError }),
          new CliError.ProcessExited({ exitCode: 3, signal: null, stderrTail: `…${secret.slice(4)} failed`, cause: `line 2 was cut by the exit: {"pw":"${secret.slice(0, 5)}` }),
          new CliError.DecodeFailed({ line: 2, raw: `pw ${secret.slice(0, 6)}… (40 more chars)`, issue: `at ${secret}`, cause: badLine }),
          new CliError.LineTooLong({ line: 2, limit: 10, raw: `pw ${secret}`, cause: badLine }),
          new CliError.MissingResult({ messages: 1, stderrTail: `login ${secret}` }),
          new CliError.IdleTimeout({ timeoutMillis: 5, lastLine: 1, stderrTail: `login ${secret}` }),
          new CliError.FixtureUnreadable({ path: `/f/${secret}`, description: secret, cause: spawnError }),
          new CliError.RecordingFailed({ path: `/f/${secret}`, description: secret, cause: spawnError })
        ]
        for (const reason of reasons) {
          const redacted = CliErrorRedaction.redact(CliError.make(reason), redact)
          const text = errorText(redacted)
          assert.notInclude(text, secret.slice(0, 5), reason._tag)
          assert.notInclude(text, secret.slice(4), reason._tag)
          assert.include(text, "<redacted>", reason._tag)
          assert.strictEqual(redacted.reason._tag, reason._tag)
          const cause = (redacted.reason as { readonly cause?: unknown }).cause
          if (cause instanceof Error) assert.strictEqual(Object.getPrototypeOf(cause), Object.getPrototypeOf((reason as { readonly cause?: unknown }).cause))
        }
        const clean = CliError.make(new CliError.SpawnFailed({ executable: "claude", description: "EACCES", cause: new Error("no secret") }))
        assert.strictEqual(CliErrorRedaction.redact(clean, redact), clean)
      }))
  })

  describe("secrets in other JSON escapes, recorded", () => {
    // \/ in an AWS secret, \u0073 starting a key, in a message, a schema mismatch and a plain-text line; with either onBadLine.
    it.live("in no error or recording; the recording replays the same", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-escaped-")
        const file = path.join(dir, "run.jsonl")
        const slashes = aws.replaceAll("/", "\\/")
        const unicode = "\\u0073" + apiKey.slice(1)
        const assistant = JSON.parse(Hostile.helloLines.assistant)
        const message = JSON.stringify({ ...assistant, message: { ...assistant.message, content: [{ type: "text", text: "KEYS" }] } })
          .replace("KEYS", `${slashes} ${unicode}`)
        const mismatch = `{"type":"result","subtype":"success","is_error":"nope","result":"${slashes} ${unicode}"}`
        const plain = `{"warn":"${slashes} ${unicode}"`
        const lines = [Hostile.helloLines.init, message, mismatch, plain, Hostile.helloLines.result]
        const env = { AWS_SECRET_ACCESS_KEY: aws, ANTHROPIC_API_KEY: apiKey }
        const layer = FaultCli.layer(FaultCli.plan(FaultCli.lines(lines), FaultCli.exit(0))).pipe(Layer.orDie)
        const [strict, strictLog] = yield* observed(runToEnd(Stream.provide(ClaudeCli.query("hi", { env }), layer)))
        const [live, liveLog] = yield* observed(runToEnd(Stream.provide(ClaudeCli.query("hi", { onBadLine: "emit", env }), layer.pipe(Recording.layer(file)))))
        assert.strictEqual(reasonOf(strict.exit)._tag, "DecodeFailed")
        const inBand = live.items.filter((item) => item instanceof DecodeError)
        assert.deepStrictEqual(inBand.map((e) => [e.reason._tag, e.line]), [["SchemaMismatch", 3], ["InvalidJson", 4]])
        assertClean([exitText(strict.exit), ...inBand.map(errorText), strictLog, liveLog].join("\n"), "the errors")
        const recorded = fs.readFileSync(file, "utf8")
        assertClean(recorded, "the recording")
        assertClean(fs.readFileSync(Recording.metadataPath(file), "utf8"), "the recording's metadata")
        const json = recorded.trimEnd().split("\n").filter((_, i) => i !== 3)
        assert.strictEqual(json.length, 4)
        for (const line of json) assert.doesNotThrow(() => JSON.parse(line), undefined, undefined, "a JSON line stays JSON")
        const replay = yield* runToEnd(Stream.provide(ClaudeCli.query("hi", { onBadLine: "emit" }), Fixture.layer(file)))
        assert.deepStrictEqual(
          replay.items.map((m) => m instanceof DecodeError ? `${m.reason._tag} ${m.line}` : m._tag),
          ["SystemInit", "AssistantMessage", "SchemaMismatch 3", "InvalidJson 4", "ResultSuccess"]
        )
      }))
  })

  describe("secrets in a recorded query's options", () => {
    // MCP headers Authorization and x-api-key, settings.env, --api-key in extraArgs, a URL's password; the CLI echoes its
    // arguments to stdout and stderr.
    it.live("in neither file nor the errors; other values kept", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-options-")
        const file = path.join(dir, "run.jsonl")
        const planted = ["zq81KdL0p9Vw3xY7tR2m", "Kq93-apikey-value", "Hunter2-Hunter2", "Zk93jdLq0PaQ7vB", "Tr0ub4dor-and-3"]
        const options: QueryOptions.QueryOptions = {
          mcpConfig: [{
            mcpServers: {
              api: { type: "http", url: "https://mcp.example/x", headers: { Authorization: `Bearer ${planted[0]}`, "x-api-key": planted[1] } },
              db: { command: "db-mcp", args: ["postgres://app:Tr0ub4dor-and-3@db/x"] }
            }
          }],
          settings: { env: { DB_PASSWORD: planted[2] }, model: "sonnet" },
          extraArgs: ["--api-key", planted[3]]
        }
        const layer = Live.layer({ executable: Secrets.argsCli("exit 3") }).pipe(Recording.layer(file))
        const [run, log] = yield* observed(runToEnd(Stream.provide(ClaudeCli.query("hi", { ...options, onBadLine: "emit" }), layer)))
        const reason = reasonOf(run.exit)
        assert.strictEqual(reason._tag, "ProcessExited")
        assert.include(reason.message, "auth failed for -p --output-format stream-json", "the CLI echoed its arguments")
        const meta = fs.readFileSync(Recording.metadataPath(file), "utf8")
        assert.include(fs.readFileSync(file, "utf8"), "Warning: using credentials -p --output-format stream-json")
        const texts = { errors: exitText(run.exit), inBand: run.items.filter((m) => m instanceof DecodeError).map(errorText).join("\n"), log, recording: fs.readFileSync(file, "utf8"), meta }
        for (const [where, text] of Object.entries(texts)) {
          for (const secret of planted) assert.notInclude(text, secret, where)
        }
        const recordedOptions = (JSON.parse(meta) as Recording.Metadata).options as any
        assert.strictEqual(recordedOptions.settings.model, "sonnet")
        assert.strictEqual(recordedOptions.mcpConfig[0].mcpServers.api.url, "https://mcp.example/x")
        assert.deepStrictEqual(recordedOptions.mcpConfig[0].mcpServers.api.headers, { Authorization: "<redacted>", "x-api-key": "<redacted>" })
      }))
  })

  describe("recordings of a CLI echoing secrets", () => {
    // The Recording layer; secrets from the query, the layer and the parent; in neither .jsonl nor .meta.json; replays
    // through the Fixture layer.
    it.live("in neither file; the recording replays", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-rec-")
        const file = path.join(dir, "run.jsonl")
        const [fromQuery, fromLayer, fromParent] = [names.slice(0, 2), names.slice(2, 4), names.slice(4)]
        const layer = Live.layer({
          executable: Secrets.leakyCli("exit 0", [...names, Secrets.shaped.name]),
          env: Object.fromEntries(fromLayer.map((n) => [n, Redacted.make(Secrets.known[n])]))
        }).pipe(Recording.layer(file))
        const env = { ...Object.fromEntries(fromQuery.map((n) => [n, Secrets.known[n]])), [Secrets.shaped.name]: Secrets.shaped.value }
        const parent = Object.fromEntries(fromParent.map((n) => [n, Secrets.known[n]]))
        const run = yield* withParentEnv(parent, runToEnd(Stream.provide(ClaudeCli.query("hi", { onBadLine: "emit", env }), layer)))
        assert.strictEqual(run.exit._tag, "Success")
        assert.isNotEmpty(Secrets.foundIn(JSON.stringify(run.items[0])), "the CLI did echo the values")
        assertClean(fs.readFileSync(file, "utf8"), "the recording")
        assertClean(fs.readFileSync(Recording.metadataPath(file), "utf8"), "the recording's metadata")
        const replay = yield* runToEnd(Stream.provide(ClaudeCli.query("hi", { onBadLine: "emit" }), Fixture.layer(file)))
        assert.deepStrictEqual(
          replay.items.map((m) => m instanceof DecodeError ? m.reason._tag : m._tag),
          ["SystemInit", "InvalidJson", "ResultSuccess"],
          "the redacted recording replays the same lines"
        )
      }))
  })

  describe("the real CLI echoing ANTHROPIC_API_KEY, recorded", () => {
    // On the scripted server, a Bash tool echoing the key.
    it.live("in no error, log, span or recording", () =>
      Effect.gen(function*() {
        const key = Secrets.known.ANTHROPIC_API_KEY
        const dir = yield* tempDir("secrets-real-")
        const file = path.join(dir, "run.jsonl")
        const layer = Scripted.layer(
          Script.make([
            Script.turn(Script.toolUse("Bash", { command: "echo key=$ANTHROPIC_API_KEY; echo key=$ANTHROPIC_API_KEY >&2" })),
            Script.turn("Done.")
          ]),
          { env: { ANTHROPIC_API_KEY: key } }
        )
        const [run, log] = yield* observed(
          runToEnd(ClaudeCli.query("Run it", { onBadLine: "emit", allowedTools: ["Bash"] })).pipe(
            Effect.provide(Recording.layer(file)(layer)),
            Effect.orDie
          )
        )
        assert.strictEqual(run.exit._tag, "Success", exitText(run.exit))
        const bashResult = JSON.stringify(run.items.filter((m) => !(m instanceof DecodeError) && m._tag === "UserMessage"))
        assert.include(bashResult, "key=", "the Bash tool ran")
        assertClean(log, "logs and spans")
        assertClean(run.items.filter((m) => m instanceof DecodeError).map(errorText).join("\n"), "in-band errors")
        assertClean(fs.readFileSync(file, "utf8"), "the recording")
        assertClean(fs.readFileSync(Recording.metadataPath(file), "utf8"), "the recording's metadata")
      }))
  })

  describe("a secret straddling every cut", () => {
    // Cuts: the stderr tail's start (also where redaction shows the held text whole), a bad line's raw cut, a line too long,
    // a line cut by the exit (also in \u and \/ escapes), a JSON syntax error's quote; at every character. Also a last
    // line cut by an exit, a kill or a clean exit at every byte of a multi-byte secret; with either onBadLine.
    it.effect("no error shows a piece of it", () =>
      Effect.gen(function*() {
        let checked = 0
        for (const [name, secret] of straddled) {
          // A key known only by its shape is recognised from its head ("sk-", "ghp_", ...) on; shorter cuts show no secret.
          const head = name === Secrets.shaped.name ? 3 : Secrets.providerHeads[name as keyof typeof Secrets.providerHeads]
          const from = head ?? 1
          const shapeOnly = head !== undefined
          const cuts = Array.from({ length: secret.length - from }, (_, i) => Straddle.cases(secret, i + from))
          const bytes = Array.from({ length: Buffer.byteLength(secret) - 1 }, (_, b) => Straddle.byteCases(secret, b + 1) ?? [])
          const all = [Straddle.syntaxQuote(secret), ...cuts.flat(), ...(shapeOnly ? [] : bytes.flat())]
          for (const c of all) {
            const text = yield* Straddle.errorsOf(c, name, secret)
            assert.notInclude(text, secret, `${name}: ${c.name}`)
            assert.notInclude(text, c.leak, `${name}: ${c.name}, ${JSON.stringify(c.leak)}`)
            checked++
          }
        }
        assert.isAbove(checked, 1500)
      }), 300_000)
  })

  describe("a recorded password with a quote and a backslash", () => {
    // JSON-escaped in its lines, with MAX_THINKING_TOKENS=1024 set: every line stays the same JSON with its numbers.
    it.live("same JSON lines without it; the recording replays", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("secrets-json-")
        const file = path.join(dir, "run.jsonl")
        const password = "p\"w\\Secret-Value-123"
        const assistant = JSON.parse(Hostile.helloLines.assistant)
        assistant.message.content = [{ type: "text", text: `the password is ${password}` }]
        const result = JSON.parse(Hostile.helloLines.result)
        result.usage = { ...result.usage, output_tokens: 1024 }
        const lines = [Hostile.helloLines.init, JSON.stringify(assistant), JSON.stringify(result)]
        const env = { DB_PASSWORD: password, MAX_THINKING_TOKENS: "1024" }
        const layer = FaultCli.layer(FaultCli.plan(FaultCli.lines(lines), FaultCli.exit(0))).pipe(Recording.layer(file), Layer.orDie)
        const live = yield* runToEnd(Stream.provide(ClaudeCli.query("hi", { env }), layer))
        assert.strictEqual(live.exit._tag, "Success")
        const recorded = fs.readFileSync(file, "utf8").trimEnd().split("\n")
        assert.strictEqual(recorded.length, 3)
        const parsed = recorded.map((line) => JSON.parse(line))
        assert.strictEqual(parsed[2].usage.output_tokens, 1024, "numbers are kept")
        assert.strictEqual(parsed[1].message.content[0].text, "the password is <redacted>")
        for (const text of [fs.readFileSync(file, "utf8"), fs.readFileSync(Recording.metadataPath(file), "utf8")]) {
          assert.notInclude(text, password)
          assert.notInclude(text, JSON.stringify(password).slice(1, -1))
        }
        const meta = JSON.parse(fs.readFileSync(Recording.metadataPath(file), "utf8")) as Recording.Metadata
        assert.deepStrictEqual(meta.options.env, { DB_PASSWORD: "<redacted>", MAX_THINKING_TOKENS: "1024" })
        const replay = yield* runToEnd(Stream.provide(ClaudeCli.query("hi"), Fixture.layer(file)))
        assert.strictEqual(replay.exit._tag, "Success")
        assert.deepStrictEqual(replay.items.slice(0, 1), live.items.slice(0, 1))
        assert.deepStrictEqual(replay.items[2], live.items[2])
      }))
  })

  describe("permission bypass is never a default", () => {
    // QueryOptions.toArgs and session args: no --dangerously-skip-permissions, no bypassPermissions.
    it.effect("no bypass flag or mode unless asked for", () =>
      Effect.gen(function*() {
        const dangerous = (args: ReadonlyArray<string>) =>
          args.some((a) => a.includes("dangerously-skip-permissions") || a.includes("bypassPermissions"))
        assert.isFalse(dangerous(QueryOptions.toArgs()))
        assert.isFalse(dangerous(QueryOptions.toArgs({})))
        assert.isFalse(dangerous(yield* SessionArgs.toArgs({})))
        const modes = fc.constantFrom<QueryOptions.PermissionMode | undefined>(undefined, "acceptEdits", "auto", "manual", "plan")
        const text = fc.string().filter((s) => !s.includes("bypassPermissions") && !s.includes("dangerously"))
        fc.assert(fc.property(
          fc.record({
            permissionMode: modes,
            model: fc.option(text, { nil: undefined }),
            allowedTools: fc.option(fc.array(text), { nil: undefined }),
            settings: fc.option(fc.dictionary(text, text), { nil: undefined }),
            extraArgs: fc.option(fc.array(text), { nil: undefined }),
            maxTurns: fc.option(fc.nat(), { nil: undefined })
          }),
          (options) => !dangerous(QueryOptions.toArgs(options))
        ))
      }))
  })

  describe("permission bypass asked for by name", () => {
    // permissionMode "bypassPermissions", or the flag in extraArgs.
    it.effect("passed as named, once, nothing added", () =>
      Effect.sync(() => {
        const base = QueryOptions.toArgs()
        assert.deepStrictEqual(QueryOptions.toArgs({ permissionMode: "bypassPermissions" }), [...base, "--permission-mode", "bypassPermissions"])
        // extraArgs is the explicit escape hatch: what is written there is passed as written, never rewritten or dropped.
        assert.deepStrictEqual(
          QueryOptions.toArgs({ extraArgs: ["--dangerously-skip-permissions"] }),
          [...base, "--dangerously-skip-permissions"]
        )
      }))
  })
})
