/**
 * The defined behaviour when the host process dies or is signalled mid-turn: nothing it started outlives it.
 * Real processes throughout: a host script using the library (and the bin), a stand-in CLI that started a
 * tool process, checked by pid. Titles read "<case>: <defined behaviour>"; a script turns them into the
 * README's reliability table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Stream from "effect/Stream"
import * as BundleBin from "../../scripts/bundle-bin.ts"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Process from "../../src/Process.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import * as FaultCli from "../../src/testing/internal/FaultCli.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../session/support/Real.ts"
import * as Tmux from "../cli/support/Tmux.ts"
import * as ClusterHosts from "./support/clusterHosts.ts"
import { awaitGone, fixtureLines } from "./support/faults.ts"
import { descendantPids } from "./support/leaks.ts"

const hello = fixtureLines("simple_hello")
const root = path.resolve(import.meta.dirname, "../..")
const pidsIn = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number)

// Within the guard's grace period and what it takes a loaded machine to notice: the bound of every wait here.
const within = Duration.sum(Process.guardGracePeriod, Duration.seconds(8))

interface Host {
  readonly child: childProcess.ChildProcess
  readonly output: () => string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

// Starts `node <args>` and waits (bounded) until it wrote `ready` on stdout.
const startHost = (args: ReadonlyArray<string>, ready: (stdout: string) => boolean) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Host> => {
      const child = childProcess.spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ code, signal }))
      )
      const deadline = Date.now() + 30_000
      while (!ready(stdout) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      if (!ready(stdout)) throw new Error(`the host did not get going: ${stdout}\n${stderr}`)
      return { child, output: () => stdout + stderr, exited }
    }),
    (host) => Effect.sync(() => host.child.kill("SIGKILL"))
  )

// A stand-in CLI that runs a tool process mid-turn: for queries FaultCli, for sessions a protocol stand-in.
const standIn = (mode: "query" | "session") =>
  Effect.tap(standInUnguarded(mode), (cli) =>
    // Whatever a failed test left running goes with the test.
    Effect.addFinalizer(() =>
      Effect.map(cli.pids, ([pids, tools]) => {
        for (const pid of [...pids, ...tools]) if (FaultCli.isAlive(pid)) process.kill(pid, "SIGKILL")
      })
    ))

interface StandIn {
  readonly executable: string
  /** The pids of the CLI runs and of the tool processes they started. */
  readonly pids: Effect.Effect<readonly [ReadonlyArray<number>, ReadonlyArray<number>]>
}

const standInUnguarded = (mode: "query" | "session") =>
  Effect.gen(function*(): Effect.fn.Return<StandIn, unknown, Scope.Scope | FileSystem.FileSystem | Path.Path> {
    if (mode === "query") {
      const installed = yield* FaultCli.make(FaultCli.plan(FaultCli.child(), FaultCli.lines(hello.slice(0, 2)), FaultCli.hang))
      return { executable: installed.executable, pids: Effect.zip(installed.pids, installed.children) }
    }
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "session-cli-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const executable = path.join(dir, "claude")
    const main = path.join(import.meta.dirname, "support", "sessionCli.ts")
    fs.writeFileSync(executable, `#!/bin/sh\nexec '${process.execPath}' '${main}' '${dir}' "$@"\n`, { mode: 0o755 })
    return {
      executable,
      pids: Effect.sync(() => [pidsIn(path.join(dir, "pids")), pidsIn(path.join(dir, "children"))] as const)
    }
  })

const spinnerFrames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/

const hostScript = path.join(import.meta.dirname, "support", "host.ts")
const scriptedHost = path.join(import.meta.dirname, "support", "scriptedHost.ts")
const commandOf = (pid: number): string => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "").join(" ")
  } catch {
    return ""
  }
}

// A turn that streams for seconds (the host is killed during it, and the restart runs it again), and a quick one.
const restartScript: Script.Script = {
  conversations: [
    Script.conversation("slow", MessagesRequest.firstUserTextIncludes("slow"), [
      Script.turn("Slow: " + "z".repeat(120), { eventDelay: "100 millis", chunkSize: 3 }),
      Script.turn("Slow again: " + "z".repeat(120), { eventDelay: "100 millis", chunkSize: 3 })
    ]),
    Script.conversation("quick", MessagesRequest.firstUserTextIncludes("quick"), [Script.turn("Quick.")])
  ],
  sideReply: "Scripted session"
}
const bin = path.join(root, "src", "cli", "main.ts")

describe("Host", () => {
  describe("a host killed mid-turn by a signal", () => {
    // SIGKILL, SIGHUP, SIGQUIT or SIGUSR2, for a query and for a session; checked by pid.
    it.live("its CLI and tool processes gone within Process.guardGracePeriod", () =>
      Effect.gen(function*() {
        for (const mode of ["query", "session"] as const) {
          for (const signal of ["SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR2"] as const) {
            yield* Effect.scoped(Effect.gen(function*() {
              const cli = yield* standIn(mode)
              const host = yield* startHost([hostScript, mode, cli.executable], (out) => out.includes("ready"))
              const [pids, tools] = yield* cli.pids
              assert.strictEqual(pids.length, 1, `${mode}: one CLI`)
              assert.strictEqual(tools.length, 1, `${mode}: one tool process`)
              host.child.kill(signal)
              assert.strictEqual((yield* Effect.promise(() => host.exited)).signal, signal)
              yield* awaitGone([...pids, ...tools], within)
            }))
          }
        }
      }).pipe(Effect.provide(NodeServices.layer)), 180_000)
  })

  describe("a host killed mid-turn, its CLI deaf to SIGTERM with a tool in a session of its own", () => {
    // The real CLI starts its Bash tool with setsid: the tool is out of the CLI's process group.
    it.live("the CLI and the tool gone within Process.guardGracePeriod", () =>
      Effect.gen(function*() {
        const tool = FaultCli.child([], { ownSession: true })
        const installed = yield* FaultCli.make(
          FaultCli.ignoreSigterm(FaultCli.plan(tool, FaultCli.lines(hello.slice(0, 2)), FaultCli.hang))
        )
        yield* Effect.addFinalizer(() =>
          Effect.map(Effect.zip(installed.pids, installed.children), ([pids, tools]) => {
            for (const pid of [...pids, ...tools]) if (FaultCli.isAlive(pid)) process.kill(pid, "SIGKILL")
          })
        )
        const host = yield* startHost([hostScript, "query", installed.executable], (out) => out.includes("ready"))
        const [[cli], [started]] = yield* Effect.zip(installed.pids, installed.children)
        const groupOf = (pid: number) => Number(childProcess.execFileSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" }))
        assert.notStrictEqual(groupOf(started!), groupOf(cli!), "the tool left the CLI's group")
        host.child.kill("SIGKILL")
        yield* Effect.promise(() => host.exited)
        yield* awaitGone([cli!, started!], within)
      }).pipe(Effect.provide(NodeServices.layer)), 60_000)
  })

  describe("the bin killed mid-turn by SIGKILL", () => {
    // The bin is effect-claude-code run.
    it.live("its CLI and tool processes gone within Process.guardGracePeriod", () =>
      Effect.gen(function*() {
        const cli = yield* standIn("query")
        const host = yield* startHost([bin, "run", "--claude", cli.executable, "--format", "jsonl", "hi"], (out) => out.includes("\n"))
        const [pids, tools] = yield* cli.pids
        host.child.kill("SIGKILL")
        yield* Effect.promise(() => host.exited)
        yield* awaitGone([...pids, ...tools], within)
      }).pipe(Effect.provide(NodeServices.layer)), 60_000)
  })

  describe("the bin sent SIGHUP, SIGQUIT or SIGTERM mid-turn", () => {
    // Exits 129, 131 or 143.
    it.live("ends its CLI and tools, exits 128 + the signal", () =>
      Effect.gen(function*() {
        for (const [signal, code] of [["SIGHUP", 129], ["SIGQUIT", 131], ["SIGTERM", 143]] as const) {
          yield* Effect.scoped(Effect.gen(function*() {
            const cli = yield* standIn("query")
            const host = yield* startHost([bin, "run", "--claude", cli.executable, "--format", "jsonl", "hi"], (out) => out.includes("\n"))
            const [pids, tools] = yield* cli.pids
            host.child.kill(signal)
            const exited = yield* Effect.promise(() => host.exited)
            assert.deepStrictEqual(exited, { code, signal: null }, host.output())
            // The bin ended them itself, before exiting: no guard needed.
            assert.deepStrictEqual([...pids, ...tools].filter(FaultCli.isAlive), [])
          }))
        }
      }).pipe(Effect.provide(NodeServices.layer)), 90_000)
  })

  describe("a host on Scripted.layer killed by SIGKILL while its CLI runs a Bash tool", () => {
    // The real CLI against the scripted server; the tool is `tail -f /dev/null`, started by the CLI in a session of its own.
    it.live("its CLI, tool and sandbox directory gone within the guard's grace period", () =>
      Effect.gen(function*() {
        const host = yield* startHost([scriptedHost], (out) => out.includes("\n"))
        const sandbox = /^ready (.+)$/m.exec(host.output())?.[1]
        assert.isDefined(sandbox, host.output())
        // The tool starts after its call reached the host: wait (bounded) until it runs.
        const tool = () => descendantPids(host.child.pid!).filter((pid) => commandOf(pid) === "tail -f /dev/null")
        const deadline = Date.now() + 30_000
        while (tool().length === 0 && Date.now() < deadline) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        const left = descendantPids(host.child.pid!)
        yield* Effect.addFinalizer(() => Effect.sync(() => left.filter(FaultCli.isAlive).forEach((pid) => process.kill(pid, "SIGKILL"))))
        assert.strictEqual(tool().length, 1, "the tool runs")
        host.child.kill("SIGKILL")
        yield* Effect.promise(() => host.exited)
        yield* awaitGone(left, within)
        const deadlineDir = Date.now() + Duration.toMillis(within)
        while (fs.existsSync(sandbox!) && Date.now() < deadlineDir) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        assert.isFalse(fs.existsSync(sandbox!), "the sandbox directory is left")
      }), 90_000)
  })

  describe("a query or a session turn of the real CLI that ran a Bash tool", () => {
    // Scripted.layer; the CLI makes $TMPDIR/claude-<uid>/<project>/<session> for the tool's output.
    it.live("no temp directory of its session left", () =>
      Effect.gen(function*() {
        for (const mode of ["query", "session"] as const) {
          let dir: string | undefined
          let seenDuringRun = false
          const see = (message: Message) =>
            Effect.sync(() => {
              if (message.type === "system" && "cwd" in message && "session_id" in message) {
                const key = String(message.cwd).replace(/[^a-zA-Z0-9]/g, "-")
                dir = path.join(process.env.TMPDIR ?? "/tmp", `claude-${os.userInfo().uid}`, key, String(message.session_id))
              }
              if (message.type === "user" && dir !== undefined) seenDuringRun = fs.existsSync(dir)
            })
          const run = mode === "query"
            ? Stream.runForEach(ClaudeCli.query("List.", { allowedTools: ["Bash"] }), see)
            : Effect.scoped(Effect.flatMap(ClaudeCli.session({ allowedTools: ["Bash"] }), (session) => Stream.runForEach(session.turn("List."), see)))
          yield* run.pipe(Effect.provide(Scripted.layer(Script.make([
            Script.turn(Script.toolUse("Bash", { command: "ls", description: "List files" })),
            Script.turn("Listed.")
          ]))))
          assert.isDefined(dir, `${mode}: the init message`)
          assert.isTrue(seenDuringRun, `${mode}: the CLI made ${dir} for the tool`)
          assert.isFalse(fs.existsSync(dir!), `${mode}: ${dir} is left`)
        }
      }), 90_000)
  })

  describe("the bin's run, its CLI exiting 0 with a child in a session of its own holding its pipes", () => {
    // The child would run for 300 s; the run ends within the drain grace period and ends the child.
    it.live("prints the result and exits 0; the child gone", () =>
      Effect.gen(function*() {
        const installed = yield* FaultCli.make(
          FaultCli.plan(FaultCli.child(["stdout", "stderr"], { ownSession: true }), FaultCli.lines(hello), FaultCli.exit(0))
        )
        yield* Effect.addFinalizer(() =>
          Effect.map(installed.children, (pids) => pids.filter(FaultCli.isAlive).forEach((pid) => process.kill(pid, "SIGKILL")))
        )
        const host = yield* startHost([bin, "run", "--claude", installed.executable, "--format", "jsonl", "hi"], () => true)
        const exited = yield* Effect.promise(() =>
          Promise.race([host.exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 30_000))])
        )
        assert.deepStrictEqual(exited, { code: 0, signal: null }, host.output())
        assert.include(host.output(), `"type":"result"`)
        const children = yield* installed.children
        assert.strictEqual(children.length, 1)
        yield* awaitGone(children, "5 seconds")
      }).pipe(Effect.provide(NodeServices.layer)), 60_000)
  })

  describe("the bin sent SIGHUP mid-turn, its CLI deaf to SIGTERM with a tool in a session of its own", () => {
    // The CLI gets SIGKILL after the kill grace period; the tool is out of the CLI's process group.
    it.live("ends both, exits 129", () =>
      Effect.gen(function*() {
        const installed = yield* FaultCli.make(
          FaultCli.ignoreSigterm(FaultCli.plan(FaultCli.child([], { ownSession: true }), FaultCli.lines(hello.slice(0, 2)), FaultCli.hang))
        )
        yield* Effect.addFinalizer(() =>
          Effect.map(Effect.zip(installed.pids, installed.children), ([pids, tools]) => {
            for (const pid of [...pids, ...tools]) if (FaultCli.isAlive(pid)) process.kill(pid, "SIGKILL")
          })
        )
        const host = yield* startHost([bin, "run", "--claude", installed.executable, "--format", "jsonl", "hi"], (out) => out.includes("\n"))
        const [[cli], [tool]] = yield* Effect.zip(installed.pids, installed.children)
        host.child.kill("SIGHUP")
        const exited = yield* Effect.promise(() => host.exited)
        assert.deepStrictEqual(exited, { code: 129, signal: null }, host.output())
        // Dead when the bin exits (the tool may wait a moment for init to reap it).
        yield* awaitGone([cli!, tool!], "2 seconds")
      }).pipe(Effect.provide(NodeServices.layer)), 60_000)
  })

  describe("the bin sent SIGHUP while its spinner shows", () => {
    // The spinner is on a terminal (tmux).
    it.live("erases the spinner's line, exits 129", () =>
      Effect.gen(function*() {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "spinner-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        )
        const fifo = path.join(dir, "stream")
        childProcess.execFileSync("mkfifo", [fifo])
        const recording = path.join(root, "fixtures", "recorded", "demo.jsonl")
        const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
        // The init line, then a writer that keeps the pipe open: the display waits for the model, spinner up.
        const script = `(head -n 1 ${q(recording)}; exec sleep 120) > ${q(fifo)} & echo $! > ${q(path.join(dir, "writer"))}; ` +
          `echo $$ > ${q(path.join(dir, "bin"))}; exec ${q(process.execPath)} ${q(bin)} view ${q(fifo)}`
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            const writer = Number(fs.readFileSync(path.join(dir, "writer"), "utf8"))
            if (FaultCli.isAlive(writer)) process.kill(writer, "SIGKILL")
          })
        )
        const pane = yield* Tmux.spawn(["sh", "-c", script], { env: { NO_COLOR: "1", TERM: "xterm-256color" } })
        yield* pane.waitFor("the spinner", (screen) => spinnerFrames.test(screen))
        process.kill(Number(fs.readFileSync(path.join(dir, "bin"), "utf8")), "SIGHUP")
        const { code, screen } = yield* pane.exit()
        assert.strictEqual(code, 129, screen)
        assert.notMatch(screen, spinnerFrames, "spinner erased")
      }), 60_000)
  })

  describe("view and stats waiting on a FIFO, sent SIGINT or SIGTERM", () => {
    // A FIFO nobody writes to: the wait for a writer is bounded.
    it.live("exit 130 or 143, no hang", () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fifo-"))
        const fifo = path.join(dir, "never-written")
        childProcess.execFileSync("mkfifo", [fifo])
        try {
          for (const [command, signal, code] of [["view", "SIGINT", 130], ["stats", "SIGTERM", 143], ["view", "SIGTERM", 143], ["stats", "SIGINT", 130]] as const) {
            const child = childProcess.spawn(process.execPath, [bin, command, fifo], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
            const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
            yield* Effect.promise(() => waitingOn(child.pid!, fifo))
            child.kill(signal)
            const ended = yield* Effect.promise(() => Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 3_000))]))
            if (ended === "hung") child.kill("SIGKILL")
            assert.strictEqual(ended, code, `${command} on a FIFO, ${signal}`)
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }), 90_000)
  })

  describe("view and stats on a device or a directory", () => {
    // A character device, a directory.
    it.effect("BadInput (exit 3) naming what it is", () =>
      Effect.sync(() => {
        // A directory is read as a tree of transcripts: one without any is named as such.
        const empty = fs.mkdtempSync(path.join(os.tmpdir(), "no-transcripts-"))
        try {
          for (const [file, kind] of [["/dev/zero", "a character device"], [empty, "a directory with no .jsonl file"]] as const) {
            for (const command of ["view", "stats"]) {
              const run = childProcess.spawnSync(process.execPath, [bin, command, file], { cwd: root, encoding: "utf8", timeout: 30_000 })
              assert.strictEqual(run.status, 3, `${command} ${file}: ${run.stderr}`)
              assert.include(run.stderr, `Cannot read ${file}: it is ${kind}`)
            }
          }
        } finally {
          fs.rmSync(empty, { recursive: true, force: true })
        }
      }), 60_000)
  })

  describe("view and stats on a directory holding two link loops and a FIFO named .jsonl", () => {
    // Node's recursive readdir follows directory links without end; a FIFO waits for a writer.
    it.effect("each file read once; the loops and the FIFO named as skipped", () =>
      Effect.sync(() => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "loops-"))
        try {
          fs.mkdirSync(path.join(dir, "a", "b"), { recursive: true })
          fs.copyFileSync(path.join(root, "fixtures", "recorded", "demo.jsonl"), path.join(dir, "a", "one.jsonl"))
          fs.copyFileSync(path.join(root, "fixtures", "recorded", "create_file.jsonl"), path.join(dir, "a", "b", "two.jsonl"))
          fs.symlinkSync("..", path.join(dir, "a", "b", "up"))
          fs.symlinkSync(dir, path.join(dir, "a", "top"))
          childProcess.execFileSync("mkfifo", [path.join(dir, "pipe.jsonl")])
          const files = [path.join(dir, "a", "b", "two.jsonl"), path.join(dir, "a", "one.jsonl")]
          const notes = [
            `skipped ${dir}/a/b/up: a link to ${fs.realpathSync(path.join(dir, "a"))}, a directory already walked`,
            `skipped ${dir}/a/top: a link to ${fs.realpathSync(dir)}, a directory already walked`,
            `skipped ${dir}/pipe.jsonl: a named pipe (FIFO), not a file`
          ]
          const run = (args: ReadonlyArray<string>) =>
            childProcess.spawnSync(process.execPath, [bin, ...args, dir], { cwd: root, encoding: "utf8", timeout: 30_000 })
          const stats = run(["stats", "--format", "json"])
          assert.strictEqual(stats.status, 0, stats.stderr)
          assert.deepStrictEqual(JSON.parse(stats.stdout).files.map((f: { path: string }) => f.path), files)
          assert.deepStrictEqual(stats.stderr.trimEnd().split("\n"), notes)
          const view = run(["view", "--format", "json"])
          assert.strictEqual(view.status, 0, view.stderr)
          assert.deepStrictEqual(JSON.parse(view.stdout).files.map((f: { file: string }) => f.file), files)
          assert.deepStrictEqual(view.stderr.trimEnd().split("\n"), notes)
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }), 90_000)
  })

  describe("the bin under the machine's Node 20", () => {
    // Bundled from the sources as npm run build bundles it, run by a Node older than package.json's engines allow.
    it.effect("one line naming the Node it needs, exit 1", (context) =>
      Effect.gen(function*() {
        if (oldNode === undefined) return context.skip("no Node older than 22 outside node_modules")
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "bin-bundle-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        )
        yield* Effect.promise(() => BundleBin.bundle(bin, dir))
        const needed = /^>=(\d+\.\d+)\.0$/.exec(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).engines.node)![1]
        const old = childProcess.spawnSync(oldNode, [path.join(dir, "main.js"), "stats", "-"], { encoding: "utf8", timeout: 30_000 })
        const version = childProcess.execFileSync(oldNode, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
        assert.strictEqual(old.stderr, `effect-claude-code needs Node.js ${needed} or later; this is Node.js ${version}.\n`)
        assert.strictEqual(old.status, 1)
        assert.strictEqual(old.stdout, "")
        // The same bundle on this Node runs.
        const current = childProcess.spawnSync(process.execPath, [path.join(dir, "main.js"), "stats", "-"], {
          encoding: "utf8",
          input: fs.readFileSync(path.join(root, "fixtures", "recorded", "demo.jsonl")),
          timeout: 30_000
        })
        assert.strictEqual(current.status, 0, current.stderr)
        assert.include(current.stdout, "decoded 18")
      }), 90_000)
  })

  describe("a Cluster.layerSqlite host killed mid-turn, restarted on its file", () => {
    // The restart also runs the killed host's turn again, which no caller reads any more and which never ends
    // on its own: at the end it gets layerSqlite's one second, not ShardingConfig's 15 s (entityTerminationTimeout),
    // and the runner's shutdown logs no warning.
    it.live("the restart does its turn, logs no warning after it, exits well within the 15 s it took", () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-restart-"))
      return Effect.gen(function*() {
        const server = yield* ScriptedServer.make(restartScript)
        const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url })
        const db = path.join(dir, "cluster.db")
        const asked = (conversation: string) =>
          Effect.map(server.requests, (requests) =>
            ScriptedServer.turnRequests(requests).filter((r) => r.conversation === conversation).length)

        const first = ClusterHosts.start({ db, entity: "a", prompt: "slow: go", sandbox })
        yield* Effect.addFinalizer(() => ClusterHosts.stop(first))
        yield* waitUntil(Effect.map(asked("slow"), (n) => n > 0)).pipe(Effect.timeout("60 seconds"))
        // The host and its CLI together, as a host dying takes both.
        yield* ClusterHosts.stop(first)
        yield* Effect.promise(() => first.exited)

        const second = ClusterHosts.start({ db, entity: "b", prompt: "quick: go", sandbox })
        yield* Effect.addFinalizer(() => ClusterHosts.stop(second))
        const exit = yield* Effect.promise(() => second.exited).pipe(Effect.timeout("90 seconds"))
        const output = second.lines.map((line) => line.text).join("\n")
        assert.strictEqual(exit.code, 0, output)
        const done = second.lines.findIndex((line) => line.text.startsWith("{\"result\""))
        assert.isAtLeast(done, 0, output)
        assert.deepStrictEqual(JSON.parse(second.lines[done]!.text), { result: "Quick." })
        assert.deepStrictEqual(second.lines.slice(done + 1).filter((line) => /WARN|ERROR/.test(line.text)), [])
        // About 2.5 s on an idle machine (one second of it the entities' grace); the bound leaves room for load.
        assert.isAtMost(exit.at - second.lines[done]!.at, 10_000, output)
        assert.deepStrictEqual(ClusterHosts.leftBehind(second), [])
      }).pipe(
        Effect.scoped,
        Effect.provide(NodeServices.layer),
        Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      )
    }, 180_000)
  })
})

// A Node older than the package supports, outside node_modules (the machine's own), if there is one.
const oldNode = [...new Set([...(process.env.PATH ?? "").split(path.delimiter), "/usr/bin", "/usr/local/bin", "/bin"])]
  .filter((dir) => dir !== "" && !dir.includes("node_modules"))
  .map((dir) => path.join(dir, "node"))
  .filter((file) => fs.existsSync(file))
  .find((file) => {
    try {
      return Number(childProcess.execFileSync(file, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).trim()) < 22
    } catch {
      return false
    }
  })

// Resolves once the process holds the FIFO open or has a thread blocked opening it (Linux: /proc), at most after
// 20 s; elsewhere after 3 s, time enough to get there.
const waitingOn = async (pid: number, fifo: string): Promise<void> => {
  const reached = () => {
    try {
      const fds = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => { try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) } catch { return "" } })
      const waits = fs.readdirSync(`/proc/${pid}/task`).map((task) => { try { return fs.readFileSync(`/proc/${pid}/task/${task}/wchan`, "utf8") } catch { return "" } })
      return fds.includes(fifo) || waits.includes("wait_for_partner")
    } catch {
      return false
    }
  }
  const deadline = Date.now() + (process.platform === "linux" ? 20_000 : 3_000)
  while ((process.platform !== "linux" || !reached()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
}
