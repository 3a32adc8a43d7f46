/**
 * A real PostgreSQL server for a test: the system's PostgreSQL (`initdb`, `pg_ctl` on PATH or under
 * /usr/lib/postgresql), a cluster in a temporary directory, listening on a free loopback port, stopped and
 * removed when the scope closes. As root it runs as the `postgres` user (PostgreSQL refuses root). When it
 * cannot start, the test fails with what went wrong: it never skips.
 */
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export interface Server {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly database: string
}

const binDir = (): string => {
  const onPath = (process.env.PATH ?? "").split(":").find((dir) => fs.existsSync(path.join(dir, "pg_ctl")))
  if (onPath !== undefined) return onPath
  const versions = fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").sort() : []
  const found = versions.map((v) => path.join("/usr/lib/postgresql", v, "bin")).find((dir) => fs.existsSync(path.join(dir, "pg_ctl")))
  if (found === undefined) {
    throw new Error(
      "PostgreSQL not found (no pg_ctl on PATH nor under /usr/lib/postgresql): `npm test` installs it first where it can " +
        "(scripts/ensure-postgres.sh, as root or with password-less sudo); else install it (apt-get install postgresql)"
    )
  }
  return found
}

/** A port nothing listens on now, on loopback. */
export const freePort = () =>
  Effect.promise(() =>
    new Promise<number>((resolve, reject) => {
      const server = net.createServer()
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
  )

export const start = Effect.acquireRelease(
  Effect.gen(function*() {
    const bin = binDir()
    const port = yield* freePort()
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-test-"))
    const asRoot = process.getuid?.() === 0
    if (asRoot) {
      const [uid, gid] = ["-u", "-g"].map((flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" }))
      if (uid.status !== 0 || gid.status !== 0) {
        throw new Error("PostgreSQL refuses to run as root and there is no `postgres` user to run it as (the postgresql package creates one)")
      }
      fs.chownSync(root, Number(uid.stdout.trim()), Number(gid.stdout.trim()))
    }
    const run = (command: string, args: ReadonlyArray<string>) => {
      const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]] : [path.join(bin, command), args]
      const result = spawnSync(file, argv as Array<string>, { encoding: "utf8", timeout: 60_000 })
      if (result.status !== 0) {
        const log = fs.existsSync(path.join(root, "log")) ? fs.readFileSync(path.join(root, "log"), "utf8").slice(-2000) : ""
        throw new Error(`PostgreSQL ${command} failed (${result.status ?? result.signal}): ${result.stderr}${result.error ?? ""}\n${log}`)
      }
    }
    const data = path.join(root, "data")
    run("initdb", ["-D", data, "-U", "test", "--auth=trust", "-E", "UTF8"])
    run("pg_ctl", ["-D", data, "-l", path.join(root, "log"), "-w", "-t", "30", "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, "start"])
    return { root, data, run, server: { host: "127.0.0.1", port, username: "test", database: "postgres" } satisfies Server }
  }),
  ({ data, root, run }) =>
    Effect.sync(() => {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
    })
).pipe(Effect.map(({ server }) => server))
