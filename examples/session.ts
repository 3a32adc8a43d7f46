/**
 * A long-lived session: several turns in one process, a permission callback, and a tool of your own.
 */
import { Effect, Schema, Stream } from "effect"
import { ClaudeCli } from "../src/index.ts"
import { CanUseTool, McpServer } from "../src/session/index.ts"

// A tool the model can call, run in this process: an Effect Schema input and an Effect handler.
const ticketStatus = McpServer.tool(
  "ticket_status",
  "Tells whether a ticket is open",
  Schema.Struct({ id: Schema.String }),
  ({ id }) => Effect.succeed(id === "ECC-1" ? "open" : "closed")
)

export const triage = Effect.gen(function*() {
  const session = yield* ClaudeCli.session({
    mcpServers: [McpServer.make("tickets", [ticketStatus])],
    // Asked before each tool use the CLI's own rules do not settle; a failure here is a deny, never a hang.
    canUseTool: (tool, input) =>
      Effect.succeed(
        tool === "Write" && !String(input.file_path).endsWith(".md")
          ? CanUseTool.deny("Only Markdown files may be written.")
          : CanUseTool.allow()
      )
  })
  // Each turn streams its messages up to and including its result.
  const first = yield* Stream.runCollect(session.turn("Is ticket ECC-1 still open?"))
  // The same process, so the second turn sees the first.
  const second = yield* Stream.runCollect(session.turn("Write the answer to status.md"))
  return [...first, ...second]
}).pipe(Effect.scoped) // the CLI process ends with the scope
