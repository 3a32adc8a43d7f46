/**
 * `npm run chaos [-- --seconds N --sessions N --runners N --seed N --faults stop,kill,term,killClient]`: the chaos run of `./chaos/run.ts`, offline
 * (the real CLI, the scripted model, a PostgreSQL of the test kit). Its progress goes to stderr; it ends with
 * one JSON line of its figures (see the README's services section for what each means), and exits 1 when one
 * that must be 0 is not.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import * as Count from "./chaos/count.ts"
import * as Run from "./chaos/run.ts"

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`)
  if (at < 0) return fallback
  const value = Number(process.argv[at + 1])
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a whole number above 0, got ${process.argv[at + 1]}`)
  return value
}

// `--faults stop,kill`: the kinds of fault injected (all by default).
function faultKinds(): Run.Options["faults"] {
  const at = process.argv.indexOf("--faults")
  if (at < 0) return undefined
  const kinds = (process.argv[at + 1] ?? "").split(",")
  const known = ["kill", "stop", "term", "killClient"] as const
  const unknown = kinds.filter((k) => !(known as ReadonlyArray<string>).includes(k))
  if (unknown.length > 0 || kinds.length === 0) throw new Error(`--faults takes kinds among ${known.join(",")}, got ${process.argv[at + 1]}`)
  return known.filter((k) => kinds.includes(k))
}

const options: Run.Options = {
  ...Run.defaults,
  seconds: flag("seconds", Run.defaults.seconds),
  sessions: flag("sessions", Run.defaults.sessions),
  runners: flag("runners", Run.defaults.runners),
  seed: flag("seed", Run.defaults.seed),
  quietSeconds: flag("quiet", Run.defaults.quietSeconds),
  faults: faultKinds()
}

Run.run(options).pipe(
  Effect.flatMap(({ figures }) =>
    Effect.sync(() => {
      process.stdout.write(JSON.stringify(figures) + "\n")
      if (Count.mustBeZero.some((name) => figures[name] !== 0)) process.exitCode = 1
    })
  ),
  Effect.scoped,
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
