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
 * import { Cluster, LocalPostgres } from "effect-claude-code/cluster"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* LocalPostgres.make
 *   const runner = Cluster.layerPostgres({ url: Redacted.make(server.url) })
 * }).pipe(Effect.scoped)
 * ```
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

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

// As root: the uid and gid of the `postgres` user.
const postgresUser = (): Effect.Effect<readonly [number, number], LocalPostgresError> => {
  const [uid, gid] = ["-u", "-g"].map((flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" }))
  return uid!.status !== 0 || gid!.status !== 0
    ? fail(new NoPostgresUser())
    : Effect.succeed([Number(uid!.stdout.trim()), Number(gid!.stdout.trim())] as const)
}

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
 * Starts a server, stopped (`pg_ctl stop -m fast`) and its directory removed when the scope closes.
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
    const run = (command: string, args: ReadonlyArray<string>): Effect.Effect<void, LocalPostgresError> => {
      const [file, argv] = owner === undefined
        ? [path.join(bin, command), args]
        : ["runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]]
      const result = spawnSync(file, argv as Array<string>, { encoding: "utf8", timeout: 60_000 })
      if (result.status === 0) return Effect.void
      const logFile = path.join(root, "log")
      return fail(new CommandFailed({
        command,
        exit: result.error !== undefined ? result.error.message : String(result.status ?? result.signal),
        stderr: result.stderr ?? "",
        log: fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-2000) : ""
      }))
    }
    const data = path.join(root, "data")
    const started = Effect.andThen(
      run("initdb", ["-D", data, "-U", "test", "--auth=trust", "-E", "UTF8"]),
      run("pg_ctl", ["-D", data, "-l", path.join(root, "log"), "-w", "-t", "30", "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, "start"])
    )
    yield* Effect.onError(started, () => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    const server: Server = { host: "127.0.0.1", port, username: "test", database: "postgres", url: `postgres://test@127.0.0.1:${port}/postgres` }
    return { root, data, run, server }
  }),
  ({ data, root, run }) =>
    run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).pipe(
      Effect.ignore,
      Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    )
).pipe(Effect.map(({ server }) => server))
