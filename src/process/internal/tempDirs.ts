/**
 * The CLI's per-session temp directory: `<TMPDIR>/claude-<uid>/<project key of its cwd>/<session id>`, made
 * once a tool runs (task output files), and left behind by the CLI. A run removes its own at its end: found by
 * the session id and cwd its init message gives, and only when made during the run (its birth time says so),
 * so that a resumed session's directory from before, or another run's, is never touched.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ProjectKey from "../../store/ProjectKey.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"

/** What a run needs to find its directory. */
export interface Tracker {
  /** Reads a line of the run's output: the init message names the session and the cwd. */
  readonly see: (line: Ndjson.Line) => void
  /** Removes the directory, if the run made it (and the project's directory, if left empty). */
  readonly remove: Effect.Effect<void>
}

// The temp directory of the CLI: its `TMPDIR` (the run's environment, or the inherited one when merged), else
// the system default.
const tmpdirOf = (env: Readonly<Record<string, unknown>> | undefined, inherits: boolean): string => {
  const own = env?.TMPDIR
  if (typeof own === "string" && own !== "") return own
  const inherited = inherits ? process.env.TMPDIR : undefined
  return inherited !== undefined && inherited !== "" ? inherited : "/tmp"
}

/** A tracker for one run, started now. `env`: the run's environment; `inherits`: `envMode` is `"merge"`. */
export const track = (env: Readonly<Record<string, unknown>> | undefined, inherits: boolean): Tracker => {
  const started = Date.now()
  let found: { readonly session: string; readonly cwd: string } | undefined
  return {
    see: (line) => {
      if (found !== undefined || !line.text.includes(`"init"`)) return
      try {
        const json = JSON.parse(line.text) as Record<string, unknown>
        if (json.type === "system" && json.subtype === "init" && typeof json.session_id === "string" && typeof json.cwd === "string") {
          found = { session: json.session_id, cwd: json.cwd }
        }
      } catch {
        // not the init message
      }
    },
    remove: Effect.sync(() => {
      const uid = os.userInfo().uid
      if (found === undefined || uid === -1 || !ProjectKey.isSessionId(found.session)) return
      const project = path.join(tmpdirOf(env, inherits), `claude-${uid}`, ProjectKey.fromPath(found.cwd))
      const dir = path.join(project, found.session)
      try {
        // Birth times are kept to the millisecond or better; one without (0) proves nothing.
        const born = fs.statSync(dir).birthtimeMs
        if (born === 0 || born < started - 1) return
        fs.rmSync(dir, { recursive: true, force: true })
        fs.rmdirSync(project)
      } catch {
        // not there, or the project's directory holds other sessions
      }
    })
  }
}
