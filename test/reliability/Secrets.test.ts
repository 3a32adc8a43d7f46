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
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Recording from "../../src/layers/Recording.ts"
import * as Scripted from "../../src/layers/Scripted.ts"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as Redaction from "../../src/Redaction.ts"
import * as Session from "../../src/session/Session.ts"
import { DecodeError } from "../../src/stream/DecodeError.ts"
import * as FaultCli from "../../src/testing/FaultCli.ts"
import * as Script from "../../src/testing/Script.ts"
import { runToEnd, tempDir } from "../layers/support.ts"
import { errorText, exitText, observed } from "./support/observed.ts"
import * as Hostile from "./support/hostile.ts"
import * as Secrets from "./support/secrets.ts"
import * as Straddle from "./support/straddle.ts"

const names = Object.keys(Secrets.known) as Array<keyof typeof Secrets.known>

// Every planted secret by the variable it is given in, plus a password a JSON line has to escape.
const straddled: ReadonlyArray<readonly [string, string]> = [
  ...names.map((name) => [name, Secrets.known[name]] as const),
  [Secrets.shaped.name, Secrets.shaped.value],
  ["DB_PASSWORD", "p\"w\\Secret-Value-123"]
]

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
      const [lenient, lenientLog] = yield* observed(runToEnd(Stream.provide(ClaudeCli.queryLenient("hi", options), layer)))
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

  it.live("secrets in the query's env (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) echoed by the CLI to stdout and stderr: no error (stderr tail, raw cut, cut line), in-band DecodeError, log or span contains them", () =>
    Effect.gen(function*() {
      assertClean(yield* leak({}, { env: Secrets.known }, names), "the run")
    }))

  it.live("secrets in the layer's env as Redacted values, echoed by the CLI: redacted the same", () =>
    Effect.gen(function*() {
      const env = Object.fromEntries(names.map((n) => [n, Redacted.make(Secrets.known[n])]))
      assertClean(yield* leak({ env }, {}, names), "the run")
    }))

  it.live("secrets inherited from the parent's environment (envMode merge), echoed by the CLI: redacted the same", () =>
    Effect.gen(function*() {
      assertClean(yield* withParentEnv(Secrets.known, leak({}, {}, names)), "the run")
    }))

  it.live("a key-shaped value (sk-ant-...) under a name that does not look secret, echoed by the CLI: redacted all the same", () =>
    Effect.gen(function*() {
      const text = yield* leak({}, { env: { [Secrets.shaped.name]: Secrets.shaped.value } }, [Secrets.shaped.name])
      assertClean(text, "the run")
      assert.strictEqual(Redaction.redactText(`key ${Secrets.shaped.value}.`, []), "key <redacted>.")
    }))

  it.live("recordings (Recording layer) of a CLI that echoes secrets from the query, the layer and the parent: neither the .jsonl nor the .meta.json contains one; the recording replays through the Fixture layer", () =>
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
      const run = yield* withParentEnv(parent, runToEnd(Stream.provide(ClaudeCli.queryLenient("hi", { env }), layer)))
      assert.strictEqual(run.exit._tag, "Success")
      assert.isNotEmpty(Secrets.foundIn(JSON.stringify(run.items[0])), "the CLI did echo the values")
      assertClean(fs.readFileSync(file, "utf8"), "the recording")
      assertClean(fs.readFileSync(Recording.metadataPath(file), "utf8"), "the recording's metadata")
      const replay = yield* runToEnd(Stream.provide(ClaudeCli.queryLenient("hi"), Fixture.layer(file)))
      assert.deepStrictEqual(
        replay.items.map((m) => m instanceof DecodeError ? m.reason : m._tag),
        ["SystemInit", "InvalidJson", "ResultSuccess"],
        "the redacted recording replays the same lines"
      )
    }).pipe(Effect.scoped))

  it.live("the real CLI on the scripted server with ANTHROPIC_API_KEY set, a Bash tool echoing it, recorded: the key is in no error, log, span or recording", () =>
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
        runToEnd(ClaudeCli.queryLenient("Run it", { allowedTools: ["Bash"] })).pipe(
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
    }).pipe(Effect.scoped))

  it.effect("a secret straddling every cut (stderr tail start, a bad line's raw cut, a line too long, a line cut by the exit, a JSON syntax error's quote), cut at every character: no error, strict or lenient, shows a piece of it", () =>
    Effect.gen(function*() {
      let checked = 0
      for (const [name, secret] of straddled) {
        // A key known only by its shape is recognised from its head "sk-" on; shorter cuts show no secret.
        const from = name === Secrets.shaped.name ? 3 : 1
        const cuts = Array.from({ length: secret.length - from }, (_, i) => Straddle.cases(secret, i + from))
        const all = [Straddle.syntaxQuote(secret), ...cuts.flat()]
        for (const c of all) {
          const text = yield* Straddle.errorsOf(c, name, secret)
          assert.notInclude(text, secret, `${name}: ${c.name}`)
          assert.notInclude(text, c.leak, `${name}: ${c.name}, ${JSON.stringify(c.leak)}`)
          checked++
        }
      }
      assert.isAbove(checked, 1000)
    }), 120_000)

  it.live("a recording of a CLI echoing a password with a quote and a backslash (JSON-escaped in its lines), with MAX_THINKING_TOKENS=1024 set: every line stays the same JSON with its numbers, the password is in neither file, and the recording replays to the same messages", () =>
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
    }).pipe(Effect.scoped))

  it.effect("permission bypass is never a default: QueryOptions.toArgs and session args for no options, and for any options that do not name it, hold no --dangerously-skip-permissions and no bypassPermissions", () =>
    Effect.gen(function*() {
      const dangerous = (args: ReadonlyArray<string>) =>
        args.some((a) => a.includes("dangerously-skip-permissions") || a.includes("bypassPermissions"))
      assert.isFalse(dangerous(QueryOptions.toArgs()))
      assert.isFalse(dangerous(QueryOptions.toArgs({})))
      assert.isFalse(dangerous(yield* Session.toArgs({})))
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

  it.effect("permission bypass asked for by name (permissionMode \"bypassPermissions\", or the flag written into extraArgs): passed exactly as named, once, and nothing else is added", () =>
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
