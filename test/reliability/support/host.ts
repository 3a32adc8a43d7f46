/**
 * A host process using the library: `node host.ts query|session <executable>`. It starts a query or a
 * session turn on the Live layer and writes "ready" on stdout once the first message arrived, then waits for
 * the rest, which never comes: the test kills it mid-turn.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../../../src/ClaudeCli.ts"
import * as Live from "../../../src/layers/Live.ts"

const [mode, executable] = process.argv.slice(2)
let ready = false
const announce = Effect.sync(() => {
  if (!ready) process.stdout.write("ready\n")
  ready = true
})

const program = mode === "session"
  ? Effect.scoped(Effect.flatMap(ClaudeCli.session(), (session) => Stream.runForEach(session.turn("hi"), () => announce)))
  : Stream.runForEach(ClaudeCli.query("hi"), () => announce)

Effect.runPromise(program.pipe(Effect.provide(Live.layer({ executable })))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
