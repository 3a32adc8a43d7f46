/**
 * How `run` ends, for each way the CLI can end: the library's ending of a run (ClaudeCli.decodeRunRecords)
 * turned into what the tool shows and its exit code. The CLI is a fake spawner replaying recorded output.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CliFailure from "../../src/cli/CliFailure.ts"
import type * as FakeSpawner from "../../src/testing/FakeSpawner.ts"
import * as Run from "./support/Run.ts"

const recording = (name: string) => fs.readFileSync(path.join(Run.root, "fixtures", "recorded", `${name}.jsonl`), "utf8")

// The exit code the tool would exit with, and the error it would show (none for a SilentExit).
const ending = (exit: Exit.Exit<unknown, unknown>): { readonly code: number; readonly shown: string | undefined } => {
  if (Exit.isSuccess(exit)) return { code: 0, shown: undefined }
  const error = Cause.squash(exit.cause) as { readonly [Runtime.errorExitCode]?: number }
  return {
    code: error[Runtime.errorExitCode] ?? -1,
    shown: CliFailure.isCliFailure(error) ? error.message : undefined
  }
}

const run = (reply: FakeSpawner.Reply) => Run.command(["run", "Hi"], reply)

describe("run: how the session ended", () => {
  it.effect("an error result, then exit 1: the result shown, exit 1", () =>
    Effect.gen(function*() {
      const out = yield* run({ stdout: recording("error_max_turns"), exitCode: 1 })
      assert.deepStrictEqual(ending(out.value), { code: CliFailure.ExitCode.StreamProblem, shown: undefined })
      assert.include(out.stdout, "Session failed (error_max_turns): Reached maximum number of turns (1)")
      assert.strictEqual(out.stderr, "")
    }))

  it.effect("a success result, exit 0: exit 0", () =>
    Effect.gen(function*() {
      const out = yield* run({ stdout: recording("simple_hello") })
      assert.deepStrictEqual(ending(out.value), { code: 0, shown: undefined })
      assert.include(out.stdout, "Session complete")
    }))

  it.effect("a success result, then exit 1: the CLI failed, exit 5", () =>
    Effect.gen(function*() {
      const out = yield* run({ stdout: recording("simple_hello"), exitCode: 1, stderr: "Error: something broke\n" })
      const { code, shown } = ending(out.value)
      assert.strictEqual(code, CliFailure.ExitCode.CliFailed)
      assert.include(shown, "exited with code 1")
      assert.include(shown, "something broke")
    }))

  it.effect("an error result, then killed by a signal: the CLI failed, exit 5", () =>
    Effect.gen(function*() {
      const out = yield* run({ stdout: recording("error_max_turns"), signal: "SIGKILL" })
      assert.strictEqual(ending(out.value).code, CliFailure.ExitCode.CliFailed)
      assert.include(ending(out.value).shown, "SIGKILL")
    }))

  it.effect("no result at all, exit 0: the output broke off, exit 5", () =>
    Effect.gen(function*() {
      const init = recording("simple_hello").split("\n")[0]!
      const out = yield* run({ stdout: init + "\n", stderr: "Warning: lost the connection\n" })
      const { code, shown } = ending(out.value)
      assert.strictEqual(code, CliFailure.ExitCode.CliFailed)
      assert.match(shown!, /result/i)
      assert.include(shown, "lost the connection")
      assert.include(out.stdout, "Session ")
    }))
})
