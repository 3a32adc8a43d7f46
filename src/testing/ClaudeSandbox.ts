/**
 * An isolated place to run the real `claude` binary offline: a temp HOME and working directory, an
 * environment pointing at a scripted server with a dummy key, and the executable to run. Everything is
 * removed when the scope closes, or when the host process dies (see {@link make}).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { dual } from "effect/Function"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { installCli } from "../internal/installCli.ts"
import * as Watcher from "../process/internal/watcher.ts"
import * as Process from "../process/Process.ts"

/**
 * No `claude` executable was found where the sandbox looked.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ExecutableNotFound extends Schema.TaggedError<ExecutableNotFound>()("ExecutableNotFound", {
  /** The executable asked for (an option or `CLAUDE_CODE_EXECUTABLE`), when one was. */
  executable: Schema.optional(Schema.String),
  /** Paths tried, in order. */
  searched: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return this.executable !== undefined
      ? `claude executable not found: ${this.executable} (tried ${this.searched.join(", ")})`
      : `claude executable not found (tried ${this.searched.join(", ")}): ${installCli}, or set CLAUDE_CODE_EXECUTABLE`
  }
}

/**
 * The sandbox's directories or files could not be made (a full disk, a read-only temp directory, ...).
 *
 * @since 0.1.0
 * @category reasons
 */
export class FileSystemFailed extends Schema.TaggedError<FileSystemFailed>()("FileSystemFailed", {
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `sandbox setup failed: ${this.description}`
  }
}

/**
 * Every reason a `SandboxError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([ExecutableNotFound, FileSystemFailed])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * The sandbox could not be set up. Recover by reason with
 * `Effect.catchReason("SandboxError", "ExecutableNotFound", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", { reason: Reason }) {
  override get message(): string {
    return this.reason.message
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * `ANTHROPIC_BASE_URL`, usually `ScriptedServer.url`. When the script needs the sandbox's paths
   * first, leave it out and add it with {@link withBaseUrl}.
   */
  readonly baseUrl?: string | undefined
  /** The `claude` executable; otherwise `CLAUDE_CODE_EXECUTABLE`, `node_modules/.bin/claude`, then `PATH`. */
  readonly executable?: string | undefined
  /** Files written into the working directory before the run (paths relative to it). */
  readonly files?: Readonly<Record<string, string>> | undefined
  /** Extra environment variables (win over the sandbox's). */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Sandbox {
  readonly home: string
  readonly cwd: string
  /** The complete environment for the child (spawn with `extendEnv: false`). */
  readonly env: Readonly<Record<string, string>>
  readonly executable: string
}

/** Inherited from the parent; everything else (keys, tokens, proxies, model overrides) is left out. */
const passthrough = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TMPDIR"] as const

/**
 * The environment for a sandbox rooted at `home`.
 *
 * @since 0.1.0
 * @category constructors
 */
const environment = (home: string, baseUrl: string | undefined, path: Path.Path): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of passthrough) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return {
    ...env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
    ...(baseUrl === undefined ? {} : { ANTHROPIC_BASE_URL: baseUrl }),
    ANTHROPIC_API_KEY: "sk-ant-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    NO_COLOR: "1"
  }
}

/**
 * Find the `claude` executable: the given path, `CLAUDE_CODE_EXECUTABLE`, `node_modules/.bin/claude`
 * in the current directory or any parent (then beside this library), then each `PATH` entry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const findExecutable = Effect.fnUntraced(function*(
  explicit?: string
): Effect.fn.Return<string, SandboxError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const given = explicit ?? process.env.CLAUDE_CODE_EXECUTABLE
  const ancestors = (dir: string): Array<string> => {
    const parent = path.dirname(dir)
    return parent === dir ? [dir] : [dir, ...ancestors(parent)]
  }
  const onPath = (name: string) =>
    (process.env.PATH ?? "").split(path.sep === "\\" ? ";" : ":").filter((d) => d !== "").map((d) =>
      path.join(d, name)
    )
  // A bare name ("claude") is looked up on PATH; anything with a separator is a path.
  const candidates = given !== undefined && given !== ""
    ? (given.includes("/") || given.includes("\\") ? [path.resolve(given)] : onPath(given))
    : [
      ...[...ancestors(process.cwd()), ...ancestors(import.meta.dirname)].map((d) =>
        path.join(d, "node_modules", ".bin", "claude")
      ),
      ...onPath("claude")
    ]
  for (const candidate of candidates) {
    if (yield* Effect.orElseSucceed(fs.exists(candidate), () => false)) return candidate
  }
  return yield* new SandboxError({
    reason: new ExecutableNotFound({ executable: given === "" ? undefined : given, searched: candidates })
  })
})

// Removes the sandbox when the host dies (see `process/internal/watcher.ts`), once the host-death guard of the CLIs
// that ran in it has ended them (`Process.guardGracePeriod`, and a second): a CLI still writing would
// otherwise make parts of it again.
const removeOnHostDeath = (root: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      process.platform === "win32"
        ? undefined
        : Watcher.start(`read -r _; sleep "$2"; rm -rf "$1"`, ["sandbox", root, String(Duration.toSeconds(Process.guardGracePeriod) + 1)])
    ),
    (watcher) => Effect.sync(() => watcher === undefined ? undefined : Watcher.stop(watcher))
  )

/**
 * Create a sandbox; its directories are removed when the scope closes, or when the host process dies however
 * it dies (a small `/bin/sh` watcher removes them then, after the host-death guard of the CLIs in it had time
 * to end them: see `Process.nodeSpawner`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ClaudeSandbox, Script, ScriptedServer } from "effect-claude-code/testing"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* ScriptedServer.make(Script.make([Script.turn("Hi")]))
 *   const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url, files: { "a.txt": "hello" } })
 *   // spawn sandbox.executable in sandbox.cwd with sandbox.env
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Options
): Effect.fn.Return<Sandbox, SandboxError, FileSystem.FileSystem | Path.Path | Scope.Scope> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const executable = yield* findExecutable(options.executable)
  const fsError = (cause: unknown) =>
    new SandboxError({ reason: new FileSystemFailed({ description: String(cause), cause }) })
  const { home, cwd } = yield* Effect.gen(function*() {
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "claude-sandbox-" })
    yield* removeOnHostDeath(root)
    // realPath: macOS temp dirs are symlinks, and the CLI reports the resolved cwd.
    const real = yield* fs.realPath(root)
    const home = path.join(real, "home")
    const cwd = path.join(real, "work")
    yield* fs.makeDirectory(path.join(home, ".claude"), { recursive: true })
    yield* fs.makeDirectory(cwd, { recursive: true })
    for (const [name, content] of Object.entries(options.files ?? {})) {
      const file = path.join(cwd, name)
      yield* fs.makeDirectory(path.dirname(file), { recursive: true })
      yield* fs.writeFileString(file, content)
    }
    return { home, cwd }
  }).pipe(Effect.mapError(fsError))
  return {
    home,
    cwd,
    executable,
    env: { ...environment(home, options.baseUrl, path), ...options.env }
  }
})

/**
 * Point a sandbox at a server.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withBaseUrl: {
  (baseUrl: string): (self: Sandbox) => Sandbox
  (self: Sandbox, baseUrl: string): Sandbox
} = dual(2, (self: Sandbox, baseUrl: string): Sandbox => ({
  ...self,
  env: { ...self.env, ANTHROPIC_BASE_URL: baseUrl }
}))
