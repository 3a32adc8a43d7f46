import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Budget from "../src/governance/Budget.ts"
import * as CliError from "../src/ClaudeCliError.ts"
import * as AgentSession from "../src/cluster/AgentSession.ts"
import * as Cluster from "../src/cluster/Cluster.ts"
import * as LocalPostgres from "../src/testing/LocalPostgres.ts"
import * as Syntax from "../src/filter/Syntax.ts"
import * as Message from "../src/schema/Message.ts"
import * as Transcript from "../src/transcript/Transcript.ts"
import * as Incoming from "../src/session/Incoming.ts"
import * as Policy from "../src/session/Policy.ts"
import * as Protocol from "../src/session/Protocol.ts"
import * as SessionError from "../src/session/SessionError.ts"
import * as SessionStore from "../src/store/SessionStore.ts"
import * as DecodeError from "../src/stream/DecodeError.ts"
import * as ClaudeSandbox from "../src/testing/ClaudeSandbox.ts"
import * as ScriptedServer from "../src/testing/ScriptedServer.ts"

// A class whose instances are errors; a Schema error class also has its `fields`.
type ErrorClass = { readonly prototype: unknown; readonly name: string }

type Reason = Error & { readonly _tag: string }

const root = path.join(import.meta.dirname, "..")

// Every error class an entry point exports, at its top or in one of its namespaces.
const exportedErrorClasses = async (): Promise<Map<ErrorClass, string>> => {
  const exports = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).exports as Record<
    string,
    string | { readonly default: string }
  >
  const found = new Map<ErrorClass, string>()
  const visit = (value: unknown, where: string) => {
    if (typeof value === "function" && value.prototype instanceof Error) {
      if (!found.has(value as ErrorClass)) found.set(value as ErrorClass, where)
    }
  }
  for (const [entry, target] of Object.entries(exports)) {
    const file = typeof target === "string" ? target : target.default
    if (!file.endsWith(".js")) continue
    const module = await import(path.join(root, file.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")))
    for (const [name, value] of Object.entries(module)) {
      visit(value, `${entry} ${name}`)
      if (typeof value === "object" && value !== null) {
        for (const [inner, member] of Object.entries(value)) visit(member, `${entry} ${name}.${inner}`)
      }
    }
  }
  return found
}

// The members of a Schema error class's `reason` union, if it has one.
const reasonsOf = (error: ErrorClass): ReadonlyArray<ErrorClass> | undefined =>
  (error as { readonly fields?: { readonly reason?: { readonly members?: ReadonlyArray<ErrorClass> } } }).fields?.reason
    ?.members

const badJson = (line: string) => {
  try {
    JSON.parse(line)
  } catch (error) {
    return error
  }
}

const invalidFields = Result.getOrThrow(Result.flip(Message.decodeMessage({ type: "result", subtype: "success" })))
  .reason

const position = { input: "text &", offset: 6, expected: "a filter", found: "end of input" }

// One value of every reason, made as the library makes it.
const samples: ReadonlyArray<readonly [ErrorClass, ReadonlyArray<Reason>]> = [
  [CliError.ClaudeCliError, [
    new CliError.ExecutableNotFound({ executable: "claude" }),
    new CliError.SpawnFailed({ executable: "claude", description: "EACCES", cause: new Error("EACCES") }),
    new CliError.NoCliSlot({ max: 2, waitedMillis: 60_000, option: "CliSlots maxWait" }),
    new CliError.ProcessExited({ exitCode: 1, signal: null, stderrTail: "boom" }),
    new CliError.ErrorResultExit({
      result: new Message.UnknownMessage({ raw: { type: "result", subtype: "error_max_turns", errors: ["max turns reached"] } }),
      exitCode: 1,
      stderrTail: ""
    }),
    new CliError.DecodeFailed({ line: 2, raw: "{", issue: "not JSON" }),
    new DecodeError.LineTooLong({ line: 2, raw: "{\"a\"…", detail: "more than the limit of 10 bytes (maxLineBytes)", maxLineBytes: 10 }),
    new CliError.MissingResult({ messages: 3, stderrTail: "" }),
    new CliError.IdleTimeout({ timeoutMillis: 5, lastLine: 1, stderrTail: "" }),
    new CliError.SessionUnavailable({ layer: "Fixture" }),
    new CliError.InvalidOptions({ description: "resume and continue exclude each other" }),
    new CliError.FixtureUnreadable({ path: "/f.jsonl", description: "ENOENT" }),
    new CliError.RecordingFailed({ path: "/f.jsonl", description: "EROFS" }),
    new SessionStore.SessionStoreError({
      reason: new SessionStore.Timeout({ operation: "load", key: "-work-app/s1", timeoutMillis: 60_000, option: "loadTimeout" })
    })
  ]],
  [SessionStore.SessionStoreError, [
    new SessionStore.OperationFailed({ operation: "append", key: "-work-app/s1", cause: new Error("EACCES") }),
    new SessionStore.Timeout({ operation: "append", key: "-work-app/s1", timeoutMillis: 60_000, option: "appendTimeout" }),
    new SessionStore.InvalidKey({ operation: "delete", field: "sessionId", value: "", detail: "it is empty" }),
    new SessionStore.InvalidEntry({ operation: "append", key: "-work-app/s1", detail: "a session title cannot be blank" }),
    new SessionStore.TranscriptConflict({
      key: "-work-app/s1",
      path: "/home/me/.claude/projects/-work-app/s1.jsonl",
      localOnly: 2,
      storedOnly: 3
    }),
    new SessionStore.SessionNotFound({ sessionId: "s1", detail: "no project of the store holds it" }),
    new SessionStore.AmbiguousSession({ sessionId: "s1", projectKeys: ["-a", "-b"] }),
    new SessionStore.MessageNotFound({ sessionId: "s1", uuid: "u1" }),
    new SessionStore.BadTranscript({ path: "/s1.jsonl", error: new Error("bad line") }),
    new SessionStore.Unavailable({ store: "SQLite /nonexistent/x.db", cause: new Error("unable to open database file") }),
    new SessionStore.Fenced({ operation: "append", key: "-work-app/s1", lease: "AgentSession/user-42", token: 3, current: 4 })
  ]],
  [Transcript.TranscriptEntryError, [
    new Transcript.NotAnEntry({ detail: "not an object" }),
    new Transcript.InvalidFields({ entryType: "user", detail: "message is missing" })
  ]],
  [SessionError.SessionError, [
    new SessionError.ControlRequestFailed({ subtype: "set_model", error: "no" }),
    new SessionError.ControlTimeout({ subtype: "interrupt", timeoutMillis: 5 }),
    new SessionError.InterruptTimeout({ timeoutMillis: 5 }),
    new SessionError.InvalidResponse({ subtype: "initialize", detail: "commands is not a list" }),
    new SessionError.SessionClosed({ operation: "send", exitCode: 1, stderrTail: "bye" }),
    new SessionError.InvalidOptions({ description: "canUseTool with a permission prompt tool" }),
    new SessionError.CallbackFailed({ callback: "canUseTool", detail: "returned a Promise where an Effect is due" }),
    new SessionError.Unserializable({ operation: "write a user frame", detail: "Do not know how to serialize a BigInt" })
  ]],
  [DecodeError.DecodeError, [
    new DecodeError.InvalidUtf8({ line: 1, raw: "{\uFFFD}", detail: "the line's 4 bytes are not valid UTF-8" }),
    new DecodeError.LineTooLong({ line: 2, raw: "{…", detail: "more than 8 bytes", maxLineBytes: 8 }),
    new DecodeError.InvalidJson({ line: 3, raw: "Warning", detail: "Unexpected token", cause: badJson("Warning") }),
    new DecodeError.SchemaMismatch({ line: 4, raw: "42", detail: "expected a JSON object, got number" })
  ]],
  [Message.MessageDecodeError, [
    new Message.NotAnObject({ detail: "expected a JSON object, got number" }),
    new Message.MissingType({ detail: "expected a string \"type\" field, got undefined" }),
    new Message.MissingSubtype({ messageType: "system", detail: "expected a string \"subtype\" field, got undefined" }),
    invalidFields
  ]],
  [Syntax.FilterSyntaxError, [
    new Syntax.UnknownAtom({ ...position, input: "bogus", offset: 0, found: "\"bogus\"" }),
    new Syntax.MissingValue({ ...position, input: "type", offset: 4, expected: "\":\" and a message type" }),
    new Syntax.UnexpectedValue({ ...position, input: "text:x", offset: 4, found: "\":\"" }),
    new Syntax.UnclosedString({ ...position, input: "tool:\"abc", offset: 9, expected: "a closing '\"'" }),
    new Syntax.UnbalancedParenthesis({ ...position, input: "(text", offset: 5, expected: "\")\" or an operator" }),
    new Syntax.UnexpectedToken(position)
  ]],
  [Policy.PolicyError, [
    new Policy.UnknownAction({ line: 2, text: "permit tool:Bash", detail: "expected allow, deny, ask or default, found \"permit\"" }),
    new Policy.MissingFilter({ line: 1, text: "ask", detail: "expected a filter after \"ask\"" }),
    new Policy.InvalidFilter({
      line: 1,
      text: "deny text &",
      detail: "filter syntax error at column 6: expected a filter, found end of input",
      filter: new Syntax.FilterSyntaxError({ reason: new Syntax.UnexpectedToken(position) })
    }),
    new Policy.DuplicateDefault({ line: 3, text: "default allow", detail: "a second default (the first is on line 1)" }),
    new Policy.InvalidReason({ line: 1, text: "deny tool \"\\q\"", detail: "the reason \"\\q\" is not a JSON string" })
  ]],
  [ClaudeSandbox.SandboxError, [
    new ClaudeSandbox.ExecutableNotFound({ executable: "/x/claude", searched: ["/x/claude"] }),
    new ClaudeSandbox.FileSystemFailed({ description: "ENOSPC", cause: new Error("ENOSPC") })
  ]],
  [ScriptedServer.ScriptedServerError, [
    new ScriptedServer.ListenFailed({ description: "EADDRNOTAVAIL", cause: new Error("EADDRNOTAVAIL") })
  ]],
  [Incoming.CallbackError, [
    new Incoming.CallbackTimeout({ callback: "canUseTool", timeoutMillis: 5 }),
    new Incoming.CallbackInterrupted({ callback: "canUseTool" }),
    new Incoming.MissingCallback({ callback: "canUseTool" }),
    new Incoming.UnknownMcpServer({ server: "calc" }),
    new Protocol.UnsupportedRequest({ subtype: "mystery" })
  ]],
  [AgentSession.AgentSessionError, [
    new AgentSession.SessionFailed({
      operation: "turn",
      error: CliError.make(new CliError.ProcessExited({ exitCode: null, signal: "SIGKILL", stderrTail: "" }))
    }),
    new AgentSession.TurnRetriesExhausted({ turnId: "t-1", attempts: 3 }),
    new AgentSession.TurnIdReused({ turnId: "t-1" }),
    new AgentSession.Undelivered({ errorTag: "MailboxFull", detail: "the mailbox is full" }),
    new AgentSession.OverBudget({
      error: new Budget.BudgetError({ reason: new Budget.Exceeded({ key: "acme", limit: "usd", allowed: 5, spent: 5, during: false }) })
    })
  ]],
  [Cluster.ClusterError, [
    new Cluster.PostgresDriverMissing({
      module: "@effect/sql-pg/PgClient",
      description: "Cannot find package '@effect/sql-pg'",
      cause: new Error("Cannot find package '@effect/sql-pg'")
    })
  ]],
  [Budget.BudgetError, [
    new Budget.Exceeded({ key: "acme", limit: "usd", allowed: 5, spent: 5.01, during: false }),
    new Budget.LedgerFailed({ operation: "charge", key: "acme", cause: new Error("connection refused") })
  ]],
  [LocalPostgres.LocalPostgresError, [
    new LocalPostgres.NotInstalled({ searched: ["PATH", "/usr/lib/postgresql/*/bin"] }),
    new LocalPostgres.NoPostgresUser(),
    new LocalPostgres.CommandFailed({ command: "initdb", exit: "1", stderr: "initdb: error: directory exists", log: "" })
  ]]
]

const wrap = (error: ErrorClass, reason: Reason): Reason => new (error as unknown as new(p: unknown) => Reason)({ reason })

describe("error classes", () => {
  it("every exported error class has a reason union, or is a reason of one", async () => {
    const classes = await exportedErrorClasses()
    const parents = [...classes.keys()].filter((c) => reasonsOf(c) !== undefined)
    const reasons = new Set(parents.flatMap((c) => reasonsOf(c)!))
    const loose = [...classes].filter(([c]) => reasonsOf(c) === undefined && !reasons.has(c)).map(([, where]) => where)
    assert.deepStrictEqual(loose, [], "error classes without a reason")
    assert.sameMembers(parents, samples.map(([error]) => error), "every error with a reason has samples here")
    for (const reason of reasons) assert.isTrue(reason.prototype instanceof Error)
  })

  it("a line too long is one reason, the stream's, in ClaudeCliError and DecodeError", () => {
    const tooLong = (error: ErrorClass) => reasonsOf(error)!.filter((r) => r.name === "LineTooLong")
    assert.deepStrictEqual(tooLong(CliError.ClaudeCliError), [DecodeError.LineTooLong])
    assert.deepStrictEqual(tooLong(DecodeError.DecodeError), [DecodeError.LineTooLong])
  })

  for (const [error, reasons] of samples) {
    describe(error.name, () => {
      it("has a sample of every reason", () => {
        assert.sameMembers([...reasonsOf(error)!], reasons.map((r) => r.constructor))
      })

      it("catchReason catches each reason and lets the others through", () => {
        for (const reason of reasons) {
          const failed = wrap(error, reason)
          const tag = failed._tag
          const caught = Effect.runSync(Effect.fail(failed).pipe(
            Effect.catchReason(tag as never, reason._tag as never, (r: unknown) => Effect.succeed(r)),
            Effect.flip,
            Effect.flip
          ))
          assert.strictEqual(caught, reason)
          for (const other of reasons.filter((r) => r._tag !== reason._tag)) {
            const passed = Effect.runSync(Effect.fail(failed).pipe(
              Effect.catchReason(tag as never, other._tag as never, (r: unknown) => Effect.succeed(r)),
              Effect.flip
            ))
            assert.strictEqual(passed, failed)
          }
          assert.strictEqual(failed.message, reason.message)
          assert.isNotEmpty(reason.message)
        }
      })

      it("encodes and decodes with its schema", () => {
        const schema = error as unknown as Schema.Codec<Reason, unknown>
        for (const reason of reasons) {
          const failed = wrap(error, reason)
          const encoded = Schema.encodeSync(schema)(failed)
          const decoded = Schema.decodeUnknownSync(schema)(encoded)
          assert.strictEqual(decoded.constructor, error)
          assert.strictEqual(decoded.message, failed.message)
          assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), encoded)
          // A reason without a schema issue in it goes through JSON whole.
          if (reason !== invalidFields) {
            const fromJson = Schema.decodeUnknownSync(schema)(JSON.parse(JSON.stringify(encoded)))
            assert.strictEqual(fromJson.message, failed.message)
          }
        }
      })
    })
  }
})
