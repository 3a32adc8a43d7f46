/**
 * A session's errors carry no secret of its environment or options, whatever brings one in: a CLI that
 * echoes them to stderr, in a line that is not JSON, in a line its exit cuts, in its answers to control
 * requests; a spawn that fails with them among its arguments. Titles read "<case>: <defined behaviour>".
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import { errorText } from "../reliability/support/observed.ts"
import * as Secrets from "../reliability/support/secrets.ts"
import { collect, reasonOf, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

const { helloLines, success } = FakeCli

// Secrets by their names (known and credential words) and one known only by its shape.
const env = { ...Secrets.known, ...Secrets.credentials, [Secrets.shaped.name]: Secrets.shaped.value }

// Every value of the environment the CLI was given, as a leaking CLI would print them.
const leaked = (io: FakeCli.Io) => Object.values(io.env).join(" ")

// The text of errors, checked clean of every planted secret, and checked to have had some to redact.
const assertClean = (errors: ReadonlyArray<unknown>) => {
  const text = errors.map(errorText).join("\n")
  assert.deepStrictEqual(Secrets.foundIn(text), [])
  assert.include(text, "<redacted>", "the errors did carry secrets")
}

describe("errors show no secret (fake CLI)", () => {
  it.effect("stderr and a non-JSON line: DecodeFailed and SessionClosed", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          yield* io.writeStderr(`Error: auth failed for ${leaked(io)}\n`)
          yield* FakeCli.writeAll(io, [helloLines[0], `Warning: using credentials ${leaked(io)}`])
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ env })
      const decodeFailed = yield* Effect.flip(collect(session.turn("hello")))
      reasonOf(decodeFailed, CliError.ClaudeCliError, CliError.DecodeFailed)
      const closed = yield* Effect.flip(session.send("again"))
      assert.include(reasonOf(closed, SessionError.SessionError, SessionError.SessionClosed).message, "auth failed")
      assertClean([decodeFailed, closed, yield* Effect.flip(session.setModel("x"))])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("death mid-line: ProcessExited", () => {
    const fake = FakeCli.make((io) =>
      Effect.gen(function*() {
        yield* io.write(success(yield* io.read, { commands: [], models: [] }))
        yield* io.read
        yield* io.writeStderr(`fatal: bad credentials ${leaked(io)}\n`)
        yield* io.write(helloLines[0])
        yield* io.writeRaw(`{"type":"assistant","key":"${leaked(io)}`)
        return 3
      })
    )
    return Effect.gen(function*() {
      const session = yield* Session.make({ env })
      const exited = yield* Effect.flip(collect(session.turn("hello")))
      const reason = reasonOf(exited, CliError.ClaudeCliError, CliError.ProcessExited)
      assert.strictEqual(reason.exitCode, 3)
      assert.include(reason.stderrTail, "fatal: bad credentials")
      assert.isDefined(reason.cause)
      assertClean([exited])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("control answers: ControlRequestFailed and InvalidResponse", () => {
    const refusing = FakeCli.make(FakeCli.serve({
      onRequest: (frame, io) => io.write(FakeCli.failure(frame, `no such model for ${leaked(io)}`))
    }))
    const misfit = FakeCli.make(FakeCli.serve({ initialize: { commands: Secrets.known.ANTHROPIC_API_KEY, models: [] } }))
    return Effect.gen(function*() {
      const refused = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make({ env })
        return yield* Effect.flip(session.setModel("other"))
      })).pipe(Effect.provide(refusing.layer))
      assert.include(reasonOf(refused, SessionError.SessionError, SessionError.ControlRequestFailed).error, "no such model")
      const invalid = yield* Effect.flip(Effect.scoped(Session.make({ env }))).pipe(Effect.provide(misfit.layer))
      reasonOf(invalid, SessionError.SessionError, SessionError.InvalidResponse)
      assertClean([refused, invalid])
    })
  })

  it.effect("idle after stderr: IdleTimeout", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          yield* io.writeStderr(`retrying with ${leaked(io)}\n`)
          yield* io.write(helloLines[0])
          return yield* Effect.never
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ env, idleTimeout: "30 seconds" })
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      yield* TestClock.adjust("30 seconds")
      const idle = yield* Fiber.join(turn)
      assert.include(reasonOf(idle, CliError.ClaudeCliError, CliError.IdleTimeout).stderrTail, "retrying with")
      assertClean([idle])
    }).pipe(Effect.provide(fake.layer))
  })
})

describe("errors show no secret (Node spawner)", () => {
  it.live("a CLI that cannot start: SpawnFailed", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "session-secrets-"))
      // A file that is not executable: the spawn fails, and Node's error names the command line.
      const executable = path.join(dir, "claude")
      fs.writeFileSync(executable, "#!/bin/sh\n", { mode: 0o644 })
      const failed = yield* Effect.flip(Effect.scoped(Session.make({
        env,
        executable,
        extraArgs: ["--append-system-prompt", `Use ${Secrets.known.ANTHROPIC_API_KEY} and ${Secrets.credentials.DB_PASS}`]
      }))).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))))
      reasonOf(failed, CliError.ClaudeCliError, CliError.SpawnFailed)
      assertClean([failed])
    }).pipe(Effect.provide(NodeServices.layer)))
})
