import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Process from "../../src/process/Process.ts"
import * as ProcessLines from "../../src/process/internal/lines.ts"
import * as Spawn from "../../src/process/internal/spawn.ts"
import type { DecodeError } from "../../src/stream/DecodeError.ts"
import type * as Ndjson from "../../src/stream/Ndjson.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-process-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const script = (name: string, body: string): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}

const run = (executable: string, prompt = "hi", env?: Record<string, string | Redacted.Redacted<string>>) =>
  Effect.flatMap(Effect.service(ChildProcessSpawner), (spawner) =>
    ProcessLines.lines(spawner, { executable, killGracePeriod: "500 millis" })(prompt, env ? { env } : {}).pipe(
      Stream.runCollect,
      Effect.exit
    ))

const reasonOf = (exit: Exit.Exit<unknown, CliError.ClaudeCliError>): CliError.Reason => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.findErrorOption(exit as Exit.Exit<unknown, CliError.ClaudeCliError>)
  assert.isTrue(error._tag === "Some")
  return (error as { value: CliError.ClaudeCliError }).value.reason
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("Process", () => {
  it.effect("a missing executable is ExecutableNotFound naming what was looked for", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* run("claude-does-not-exist-xyz"))
      assert.strictEqual(reason._tag, "ExecutableNotFound")
      assert.include(reason.message, "claude-does-not-exist-xyz")
      assert.include(reason.message, "executable")
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("spawn: a missing working directory is SpawnFailed naming it", () =>
    Effect.gen(function*() {
      const spawner = yield* Effect.service(ChildProcessSpawner)
      const missing = path.join(dir, "no-such-dir")
      const exit = yield* Spawn.spawn(spawner, { executable: "sh", args: [], cwd: missing, stdin: "ignore" }).pipe(
        Effect.scoped,
        Effect.exit
      )
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "SpawnFailed")
      assert.include(reason.message, missing)
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("a non-zero exit carries the code and the redacted stderr tail", () =>
    Effect.gen(function*() {
      const exe = script("fail.sh", `echo '{"type":"system"}'; echo "boom: key=$ANTHROPIC_API_KEY" >&2; exit 3`)
      const reason = reasonOf(yield* run(exe, "hi", { ANTHROPIC_API_KEY: "sk-ant-secret-123" }))
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.strictEqual(reason.exitCode, 3)
      assert.include(reason.stderrTail, "boom: key=<redacted>")
      assert.notInclude(reason.message, "sk-ant-secret-123")
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("killed mid-line: ProcessExited with the signal, no cut message", () =>
    Effect.gen(function*() {
      const exe = script("killed.sh", `echo '{"type":"system"}'; printf '{"type":"assist'; kill -9 $$`)
      const exit = yield* run(exe)
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.strictEqual(reason.signal, "SIGKILL")
      assert.include(String(reason.cause), "cut by the kill")
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("the prompt goes to stdin, never read as a flag", () =>
    Effect.gen(function*() {
      const exe = script("echo.sh", `printf '{"argc":%s,"stdin":"%s"}\\n' "$#" "$(cat)"`)
      const exit = yield* run(exe, "--version -p")
      assert.isTrue(Exit.isSuccess(exit))
      const [line] = (exit as unknown as Exit.Success<ReadonlyArray<Ndjson.Line>>).value
      const parsed = JSON.parse(line.text)
      assert.strictEqual(parsed.stdin, "--version -p")
      assert.notInclude(fs.readFileSync(exe, "utf8"), "--version -p")
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("lines over 1 MiB pass through the process path", () =>
    Effect.gen(function*() {
      const exe = script("big.sh", `head -c 2000000 /dev/zero | tr '\\0' 'a' | sed 's/^/{"t":"/; s/$/"}/'; echo`)
      const exit = yield* run(exe)
      assert.isTrue(Exit.isSuccess(exit))
      const lines = (exit as unknown as Exit.Success<ReadonlyArray<Ndjson.Line>>).value
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(JSON.parse(lines[0].text).t.length, 2_000_000)
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.effect("Stream.take(1) ends the process: no process is left behind", () =>
    Effect.gen(function*() {
      const exe = script("forever.sh", `while true; do echo "{\\"pid\\":$$}"; sleep 0.05; done`)
      const spawner = yield* Effect.service(ChildProcessSpawner)
      const lines = yield* ProcessLines.lines(spawner, { executable: exe })("hi").pipe(Stream.take(1), Stream.runCollect)
      const pid = JSON.parse((lines[0] as Ndjson.Line).text).pid as number
      assert.isFalse(alive(pid))
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.live("Stream.take ends a process that ignores SIGTERM", () =>
    Effect.gen(function*() {
      const pidFile = path.join(dir, "stubborn.pid")
      const exe = script("stubborn.sh", `trap '' TERM; echo $$ > ${pidFile}; while true; do echo '{}'; sleep 0.05; done`)
      const spawner = yield* Effect.service(ChildProcessSpawner)
      yield* ProcessLines.lines(spawner, { executable: exe, killGracePeriod: "300 millis" })("hi").pipe(
        Stream.take(3),
        Stream.runDrain,
        Effect.timeout("5 seconds")
      )
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
      assert.isFalse(alive(pid))
    }).pipe(Effect.provide(Process.nodeSpawner)))

  it.live("interruption ends the process, even one that ignores SIGTERM", () =>
    Effect.gen(function*() {
      const exe = script("stubborn-pid.sh", `trap '' TERM; while true; do echo "{\\"pid\\":$$}"; sleep 0.05; done`)
      const spawner = yield* Effect.service(ChildProcessSpawner)
      const seen: Array<Ndjson.Line | DecodeError> = []
      const fiber = yield* ProcessLines.lines(spawner, { executable: exe, killGracePeriod: "300 millis" })("hi").pipe(
        Stream.runForEach((line) => Effect.sync(() => seen.push(line))),
        Effect.forkChild
      )
      while (seen.length < 3) yield* Effect.sleep("10 millis")
      const pid = JSON.parse((seen[0] as Ndjson.Line).text).pid as number
      assert.isTrue(alive(pid), "the process runs until the interruption")
      yield* Fiber.interrupt(fiber)
      assert.isFalse(alive(pid), "the process is gone once Fiber.interrupt returns")
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
    }).pipe(Effect.provide(Process.nodeSpawner)))

  describe("the CLI's process group", () => {
    // The process table's view of a pid.
    const ps = (pid: number, field: string) => execFileSync("ps", ["-o", `${field}=`, "-p", String(pid)], { encoding: "utf8" }).trim()
    const ids = (pid: number) => ({ pgid: Number(ps(pid, "pgid")), sid: Number(ps(pid, "sid")) })
    // Killed: gone, or a zombie its new parent (init, which may be slow to reap here) has not reaped yet.
    const ended = (pid: number) => !alive(pid) || ps(pid, "stat").startsWith("Z")
    // The wrapper runs where there is perl and no controlling terminal; elsewhere Node's `detached` (`setsid`)
    // gives the process a group of its own in a session of its own, which it leads.
    const hasTerminal = (() => {
      try {
        fs.closeSync(fs.openSync("/dev/tty", "r"))
        return true
      } catch {
        return false
      }
    })()
    const wrapped = (fs.existsSync("/usr/bin/perl") || fs.existsSync("/bin/perl")) && !hasTerminal
    const sessionOf = (pid: number) => wrapped ? ids(process.pid).sid : pid

    // Runs `executable` (a script writing its pid and $0, then waiting), and reads its group and session while it lives.
    const groupOf = (executable: string, options: { readonly env?: Record<string, string> } = {}) =>
      Effect.gen(function*() {
        const spawner = yield* Effect.service(ChildProcessSpawner)
        let seen: { pgid: number; sid: number } | undefined
        const lines = yield* ProcessLines.lines(spawner, { executable })("hi", options).pipe(
          Stream.take(1),
          Stream.tap((line) => Effect.sync(() => seen = ids(JSON.parse((line as Ndjson.Line).text).pid))),
          Stream.runCollect
        )
        const { pid, argv0 } = JSON.parse((lines[0] as Ndjson.Line).text) as { pid: number; argv0: string }
        return { pid, argv0, seen }
      })
    const idsBody = `echo "{\\"pid\\":$$,\\"argv0\\":\\"$0\\"}"; sleep 30`

    it.effect("leads a group of its own, in the host's session where perl can wrap it", () =>
      Effect.gen(function*() {
        const exe = script("ids.sh", idsBody)
        const { pid, argv0, seen } = yield* groupOf(exe)
        assert.deepStrictEqual(seen, { pgid: pid, sid: sessionOf(pid) })
        assert.strictEqual(argv0, exe)
      }).pipe(Effect.provide(Process.nodeSpawner)))

    it.effect("found on the run's PATH, it leads its group too", () =>
      Effect.gen(function*() {
        const bin = path.join(dir, "bin")
        fs.mkdirSync(bin, { recursive: true })
        fs.writeFileSync(path.join(bin, "ids-on-path"), `#!/bin/sh\n${idsBody}\n`, { mode: 0o755 })
        const { pid, seen } = yield* groupOf("ids-on-path", { env: { PATH: `${bin}:${process.env.PATH}` } })
        assert.deepStrictEqual(seen, { pgid: pid, sid: sessionOf(pid) })
      }).pipe(Effect.provide(Process.nodeSpawner)))

    // The host SIGKILLed once the process has started and before its guard's watcher has (here: never started).
    // Where perl wraps it on Linux (x64, arm64) the kernel sends it SIGTERM as the host dies; elsewhere that
    // moment stays open, and the process is left (then ended here).
    const deathSignal = wrapped && process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64")
    it.live("a host SIGKILLed before the guard's watcher started: the process ends where perl wraps it on Linux", () =>
      Effect.gen(function*() {
        const host = path.join(import.meta.dirname, "support", "wrapHost.ts")
        const hostProcess = yield* Effect.sync(() => spawn(process.execPath, [host], { stdio: ["ignore", "pipe", "inherit"] }))
        const pid = yield* Effect.callback<number>((resume) => {
          hostProcess.stdout!.once("data", (data: Buffer) => resume(Effect.succeed(Number(String(data).trim()))))
        }).pipe(Effect.timeout("20 seconds"))
        // Started through the wrapper: it is `sleep` by now, or about to be.
        yield* Effect.sleep("300 millis")
        assert.isTrue(alive(pid))
        hostProcess.kill("SIGKILL")
        let gone = false
        for (let i = 0; i < 50 && !gone; i++) {
          yield* Effect.sleep("100 millis")
          gone = ended(pid)
        }
        if (!gone) process.kill(pid, "SIGKILL")
        assert.strictEqual(gone, deathSignal)
      }))

    it.effect("its group is ended with the run after a clean exit", () =>
      Effect.gen(function*() {
        const exe = script("leaves.sh", `sleep 30 >/dev/null 2>&1 & echo "{\\"left\\":$!}"`)
        const exit = yield* run(exe)
        assert.isTrue(Exit.isSuccess(exit))
        const left = JSON.parse((exit as unknown as Exit.Success<ReadonlyArray<Ndjson.Line>>).value[0]!.text).left as number
        assert.isTrue(ended(left))
      }).pipe(Effect.provide(Process.nodeSpawner)))
  })
})
