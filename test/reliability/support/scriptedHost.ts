/**
 * A host process using the test kit: `node scriptedHost.ts`. It runs a query on `Scripted.layer` whose model
 * has the CLI run `tail -f /dev/null` (which never ends) with Bash, writes "ready <sandbox directory>" on stdout once the tool call
 * arrived, then waits for the rest, which never comes: the test kills it mid-tool.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import * as ClaudeCli from "../../../src/ClaudeCli.ts"
import * as Scripted from "../../../src/testing/Scripted.ts"
import * as Script from "../../../src/testing/Script.ts"

const script = Script.make([
  Script.turn(Script.toolUse("Bash", { command: "tail -f /dev/null", description: "Wait" })),
  Script.turn("Done waiting.")
])

const program = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  let ready = false
  yield* Stream.runForEach(ClaudeCli.query("Wait.", { allowedTools: ["Bash"] }), (message) =>
    Effect.sync(() => {
      if (ready || message.type !== "assistant") return
      ready = true
      process.stdout.write(`ready ${path.dirname(sandbox.cwd)}\n`)
    }))
})

Effect.runPromise(program.pipe(Effect.provide(Scripted.layer(script)))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
