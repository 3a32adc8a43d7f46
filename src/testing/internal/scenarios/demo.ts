/**
 * The scenario `npm start` shows live: a small tool chain with a denial, streamed slowly enough to watch.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

const slow = { eventDelay: "40 millis", chunkSize: 12 } as const

/**
 * @since 0.1.0
 * @category scenarios
 */
export const demo: Scenario.Scenario = {
  name: "demo",
  description: "Read a TODO list, run a Bash command, try a Write that is denied, then summarise (slow streaming).",
  prompt: "Look at TODO.md, count the open items and save the count to count.txt.",
  files: { "TODO.md": "# TODO\n- [ ] write docs\n- [x] add tests\n- [ ] publish\n" },
  script: ({ cwd }) =>
    Script.make([
      Script.turn([
        Script.thinking("I should read TODO.md first, then count unchecked boxes."),
        Script.text("Let me read the TODO list."),
        Script.toolUse("Read", { file_path: `${cwd}/TODO.md` })
      ], slow),
      Script.turn([
        Script.toolUse("Bash", { command: "grep -c '\\[ \\]' TODO.md", description: "Count open items" })
      ], slow),
      Script.turn([
        Script.text("Two items are open. Saving the count."),
        Script.toolUse("Write", { file_path: `${cwd}/count.txt`, content: "2\n" })
      ], slow),
      Script.turn("TODO.md has 2 open items (write docs, publish). I could not save count.txt: writing was not permitted.", slow)
    ])
}
