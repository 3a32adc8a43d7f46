/**
 * A permission policy in the filter language: reads under `src/` and `git status` are allowed, `rm` is denied
 * with a reason told to the model, and everything else is asked about (here a callback allows Markdown
 * writes and refuses the rest). Each decision names the rule that made it; `Filter.permissionDenied` finds
 * the refused calls in the messages afterwards.
 */
import { Effect, Stream } from "effect"
import { ClaudeCli } from "../src/index.ts"
import { Filter, Item } from "../src/filter/index.ts"
import { CanUseTool, Policy } from "../src/session/index.ts"

export const rules = `
allow tool:Read & path:src/**
allow tool:Bash & command:"git status*"
deny  tool:Bash & command:"rm *"   "Nothing is deleted here."
default ask
`

export const tidy = Effect.gen(function*() {
  // Fails with a PolicyError naming the line; legal but doubtful rules (one that can never match, a policy
  // that allows everything) come back as warnings.
  const policy = yield* Policy.parse(rules)
  yield* Effect.forEach(policy.warnings, (warning) => Effect.logWarning(warning.message))
  const tracked = yield* Policy.track(policy, {
    ask: (tool, input) =>
      Effect.succeed(
        tool === "Write" && String(input.file_path).endsWith(".md") ? CanUseTool.allow() : CanUseTool.deny("Not today.")
      )
  })
  const session = yield* ClaudeCli.session({
    canUseTool: tracked.canUseTool,
    // The CLI asks only about calls its own rules leave open: with these it asks about every Read and Bash too.
    settings: JSON.stringify({ permissions: { ask: ["Read", "Bash"] } })
  })
  const messages = yield* Stream.runCollect(session.turn("Tidy up the repository"))
  // The policy's decisions so far (`tracked.decisions` is the same as a stream), each with its rule.
  const decisions = (yield* tracked.decided).map((d) =>
    `${d.toolName}: ${d.action} by ${d.rule === undefined ? "the default" : Policy.describeRule(d.rule)}`
  )
  const refused = Item.fromIterable(messages).filter(Filter.and(Filter.toolResult(), Filter.permissionDenied))
  return { messages, decisions, refused: refused.map((item) => item.toolUseId) }
}).pipe(Effect.scoped)
