/**
 * A PostgreSQL server on this machine for a cluster's tests and demos, as `Cluster.layerTest` is the
 * in-memory runner: the system's PostgreSQL (`initdb` and `pg_ctl` on `PATH` or under `/usr/lib/postgresql`),
 * a database cluster in a temporary directory listening on a free loopback port, stopped and removed when
 * the scope closes. As root it runs as the `postgres` user, since PostgreSQL refuses to run as root.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { Cluster } from "effect-claude-code/cluster"
 * import { LocalPostgres } from "effect-claude-code/testing"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* LocalPostgres.make
 *   const runner = Cluster.layerPostgres({ url: Redacted.make(server.url) })
 * }).pipe(Effect.scoped)
 * ```
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Watcher from "../process/internal/watcher.ts"

/**
 * No `pg_ctl` on `PATH` nor under `/usr/lib/postgresql`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class NotInstalled extends Schema.TaggedError<NotInstalled>()("NotInstalled", {
  searched: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `PostgreSQL is not installed (no pg_ctl in ${this.searched.join(", ")}): install it (apt-get install postgresql, brew install postgresql)`
  }
}

/**
 * Running as root, with no `postgres` user to run the server as.
 *
 * @since 0.1.0
 * @category reasons
 */
export class NoPostgresUser extends Schema.TaggedError<NoPostgresUser>()("NoPostgresUser", {}) {
  override get message(): string {
    return "PostgreSQL refuses to run as root and there is no `postgres` user to run it as (the postgresql package creates one)"
  }
}

/**
 * A PostgreSQL command (`initdb`, `pg_ctl`) failed: its exit code or signal, its stderr and the server log's end.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CommandFailed extends Schema.TaggedError<CommandFailed>()("CommandFailed", {
  command: Schema.String,
  exit: Schema.String,
  stderr: Schema.String,
  log: Schema.String
}) {
  override get message(): string {
    return `PostgreSQL ${this.command} failed (${this.exit}): ${this.stderr}${this.log === "" ? "" : `\n${this.log}`}`
  }
}

/**
 * @since 0.1.0
 * @category errors
 */
export class LocalPostgresError extends Schema.TaggedError<LocalPostgresError>()("LocalPostgresError", {
  reason: Schema.Union([NotInstalled, NoPostgresUser, CommandFailed])
}) {
  override get message(): string {
    return this.reason.message
  }
}

/**
 * A running server: one database, one user, no password (trust on loopback).
 *
 * @since 0.1.0
 * @category models
 */
export interface Server {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly database: string
  /** `postgres://username@host:port/database`, for `Cluster.layerPostgres`'s `url`. */
  readonly url: string
}

const fail = (reason: LocalPostgresError["reason"]) => Effect.fail(new LocalPostgresError({ reason }))

const binDir = (): Effect.Effect<string, LocalPostgresError> => {
  const candidates = [
    ...(process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== ""),
    ...(fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").sort() : [])
      .map((version) => path.join("/usr/lib/postgresql", version, "bin"))
  ]
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, "pg_ctl")))
  return found === undefined ? fail(new NotInstalled({ searched: ["PATH", "/usr/lib/postgresql/*/bin"] })) : Effect.succeed(found)
}

// Node's own spawner: the one in context, if any, may be a test double or one that guards the CLI's processes.
const spawner = NodeChildProcessSpawner.layer.pipe(Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

interface Exited {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

// Runs a command to its end without blocking the event loop; at most a minute (pg_ctl waits 30 s at most).
const exec = (file: string, args: ReadonlyArray<string>): Effect.Effect<Exited, string> =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* ChildProcess.make(file, args, { stdin: "ignore", forceKillAfter: "2 seconds" })
    const text = (stream: Stream.Stream<Uint8Array, PlatformError.PlatformError>) => Stream.mkString(Stream.decodeText(stream))
    const [stdout, stderr, exitCode] = yield* Effect.all([text(handle.stdout), text(handle.stderr), handle.exitCode], {
      concurrency: "unbounded"
    })
    return { exitCode, stdout, stderr }
  })).pipe(
    Effect.provide(spawner),
    Effect.mapError((error) => error.message),
    Effect.timeoutOrElse({ duration: "60 seconds", orElse: () => Effect.fail("timed out after 60 seconds") })
  )

// As root: the uid and gid of the `postgres` user.
const postgresUser = (): Effect.Effect<readonly [number, number], LocalPostgresError> =>
  Effect.all(["-u", "-g"].map((flag) => exec("id", [flag, "postgres"]))).pipe(
    Effect.flatMap(([uid, gid]) =>
      uid!.exitCode !== 0 || gid!.exitCode !== 0
        ? fail(new NoPostgresUser())
        : Effect.succeed([Number(uid!.stdout.trim()), Number(gid!.stdout.trim())] as const)
    ),
    Effect.catch((error) => typeof error === "string" ? fail(new NoPostgresUser()) : Effect.fail(error))
  )

// Stops the server and removes `root` when this process dies before the scope closes, as the server (a
// daemon started by pg_ctl) would otherwise outlive it. Started before `initdb`, so a death while the server
// starts is covered too: a second stop a second later catches a postmaster that was still starting, and an
// `initdb` or `postgres` still running on the data directory is killed before the directory goes (the pattern
// names the program, as this watcher's own command line holds the directory too). `initdb`'s own `postgres
// --boot`/`--single` children name the directory only in their environment and run in it: those are killed by
// their working directory, else they go on writing (a shutdown checkpoint) while the directory is removed. The
// removal is tried again until nothing is left, for a write that was under way when its process was killed.
const startWatcher = (stop: ReadonlyArray<string>, root: string) =>
  Watcher.start(
    "read -r _; \"$@\" >/dev/null 2>&1; sleep 1; \"$@\" >/dev/null 2>&1; " +
      "pkill -KILL -f -- \"^[^ ]*(initdb|/postgres) .*-D $0/data\" >/dev/null 2>&1; " +
      "for p in /proc/[0-9]*; do [ \"$(readlink \"$p/cwd\" 2>/dev/null)\" = \"$0/data\" ] && kill -KILL \"${p#/proc/}\" 2>/dev/null; done; " +
      "i=0; while [ -e \"$0\" ] && [ $i -lt 20 ]; do rm -rf \"$0\" 2>/dev/null || sleep 0.5; i=$((i+1)); done",
    [root, ...stop]
  )

/**
 * A port nothing listens on now, on loopback.
 *
 * @since 0.1.0
 * @category constructors
 */
export const freePort: Effect.Effect<number> = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
)

/**
 * Starts a server, stopped (`pg_ctl stop -m fast`) and its directory removed when the scope closes, or when
 * this process dies first (SIGKILL included: a watcher process then stops it, `-m immediate`). Starting
 * does not block the event loop.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Server, LocalPostgresError, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function*() {
    const bin = yield* binDir()
    const port = yield* freePort
    const owner = process.getuid?.() === 0 ? yield* postgresUser() : undefined
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-local-"))
    if (owner !== undefined) fs.chownSync(root, owner[0], owner[1])
    const logFile = path.join(root, "log")
    const argv = (command: string, args: ReadonlyArray<string>): readonly [string, ReadonlyArray<string>] =>
      owner === undefined
        ? [path.join(bin, command), args]
        : ["runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]]
    const failed = (command: string, exit: string, stderr: string) =>
      fail(new CommandFailed({
        command,
        exit,
        stderr,
        log: fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-2000) : ""
      }))
    const run = (command: string, args: ReadonlyArray<string>): Effect.Effect<void, LocalPostgresError> =>
      exec(...argv(command, args)).pipe(Effect.matchEffect({
        onFailure: (description) => failed(command, description, ""),
        onSuccess: (exited) => exited.exitCode === 0 ? Effect.void : failed(command, String(exited.exitCode), exited.stderr)
      }))
    const data = path.join(root, "data")
    const [file, args] = argv("pg_ctl", ["-D", data, "-m", "immediate", "stop"])
    const watcher = startWatcher([file, ...args], root)
    const started = Effect.andThen(
      run("initdb", ["-D", data, "-U", "test", "--auth=trust", "-E", "UTF8"]),
      run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "30", "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, "start"])
    )
    yield* Effect.onError(started, () =>
      Effect.sync(() => {
        Watcher.stop(watcher)
        fs.rmSync(root, { recursive: true, force: true })
      }))
    const server: Server = { host: "127.0.0.1", port, username: "test", database: "postgres", url: `postgres://test@127.0.0.1:${port}/postgres` }
    return { root, data, run, server, watcher }
  }),
  ({ data, root, run, watcher }) =>
    // The scope's own stop ends the server: the watcher goes first, so it stops nothing when this process exits.
    Effect.sync(() => Watcher.stop(watcher)).pipe(
      Effect.andThen(run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])),
      Effect.ignore,
      Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    )
).pipe(Effect.map(({ server }) => server))
