/**
 * The test kit's PostgreSQL: started without blocking the event loop, and stopped when the process that
 * started it dies before its scope closes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as child from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as LocalPostgres from "../../src/testing/LocalPostgres.ts"

// The live processes, from the process table.
const processes = () =>
  child.execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" }).split("\n").flatMap((line) => {
    const [, pid, ppid, stat, args] = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line) ?? []
    return pid === undefined || stat!.startsWith("Z") ? [] : [{ pid: Number(pid), ppid: Number(ppid), args: args! }]
  })

// The server listening on `port`: its postmaster's pid and data directory.
const postmaster = (port: number) => {
  const found = processes().find((p) => / -D \S+/.test(p.args) && p.args.includes(` -p ${port} `) && !p.args.includes("pg_ctl"))
  return found === undefined ? undefined : { pid: found.pid, data: / -D (\S+)/.exec(found.args)![1]! }
}

const accepts = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resume(Effect.succeed(true))))
    socket.once("error", () => resume(Effect.succeed(false)))
  })

const waitUntil = (condition: () => boolean) =>
  Effect.repeat(Effect.sync(condition), { until: (holds) => holds, schedule: Schedule.spaced("100 millis") }).pipe(
    Effect.timeout("60 seconds"),
    Effect.orElseSucceed(() => false)
  )

// A process that starts a server, prints it, and lives until killed.
const startStarter = () => {
  const module = JSON.stringify(pathToFileURL(path.join(import.meta.dirname, "..", "..", "src", "testing", "LocalPostgres.ts")).href)
  return child.spawn(process.execPath, ["--input-type=module", "-e", `
    import { Effect } from "effect"
    const LocalPostgres = await import(${module})
    // Alive until killed: the server's watcher does not keep the event loop going.
    setInterval(() => {}, 60_000)
    await Effect.runPromise(Effect.scoped(Effect.flatMap(LocalPostgres.make, (server) =>
      Effect.andThen(Effect.sync(() => console.log(JSON.stringify(server))), Effect.never))))
  `], { cwd: path.join(import.meta.dirname, "..", ".."), stdio: ["ignore", "pipe", "inherit"] })
}

describe("LocalPostgres", () => {
  it.live("starts without blocking the event loop: its initdb is seen running meanwhile", () =>
    Effect.gen(function*() {
      let seen = false
      const poll = Effect.sync(() => {
        seen ||= processes().some((p) => p.ppid === process.pid && p.args.includes("initdb"))
      })
      const poller = yield* Effect.forkChild(Effect.repeat(poll, Schedule.spaced("20 millis")))
      const server = yield* LocalPostgres.make
      yield* Fiber.interrupt(poller)
      assert.isTrue(seen, "no initdb child was seen while the server started")
      assert.isTrue(yield* accepts(server.port))
    }), 120_000)

  it.live("a server whose starter is SIGKILLed is stopped and its directory removed", () =>
    Effect.gen(function*() {
      const starter = startStarter()
      const line = yield* Effect.callback<string>((resume) => {
        let out = ""
        starter.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          if (out.includes("\n")) resume(Effect.succeed(out.split("\n")[0]!))
        })
        starter.once("exit", (code) => resume(Effect.succeed(`exited ${code}`)))
      })
      const { port } = JSON.parse(line) as LocalPostgres.Server
      const server = postmaster(port)
      assert.isDefined(server, `no postmaster on port ${port}`)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          // Whatever the assertions found, nothing of it outlives the test.
          if (postmaster(port) !== undefined) process.kill(server!.pid, "SIGKILL")
          fs.rmSync(path.dirname(server!.data), { recursive: true, force: true })
        })
      )
      assert.isNull(starter.exitCode)
      starter.kill("SIGKILL")
      assert.isTrue(yield* waitUntil(() => postmaster(port) === undefined), "the server outlived its starter")
      assert.isTrue(yield* waitUntil(() => !fs.existsSync(path.dirname(server!.data))), "its directory was left")
    }), 120_000)

  for (const stage of ["initdb", "pg_ctl"]) {
    it.live(`a starter SIGKILLed while its ${stage} runs leaves no server and no directory`, () =>
      Effect.gen(function*() {
        const starter = startStarter()
        // The starter's command of that stage, and the data directory it names.
        let data: string | undefined
        const found = yield* waitUntil(() => {
          const command = processes().find((p) => p.ppid === starter.pid && p.args.includes(stage) && / -D \S+/.test(p.args))
          data = command === undefined ? undefined : / -D (\S+)/.exec(command.args)![1]!
          return data !== undefined
        })
        assert.isTrue(found, `no ${stage} of the starter was seen`)
        const root = path.dirname(data!)
        const onData = () => processes().filter((p) => p.args.includes(data!))
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const p of onData()) process.kill(p.pid, "SIGKILL")
            fs.rmSync(root, { recursive: true, force: true })
          })
        )
        starter.kill("SIGKILL")
        assert.isTrue(yield* waitUntil(() => onData().length === 0), `left running: ${onData().map((p) => p.args).join("; ")}`)
        assert.isTrue(yield* waitUntil(() => !fs.existsSync(root)), "its directory was left")
      }), 120_000)
  }
})
