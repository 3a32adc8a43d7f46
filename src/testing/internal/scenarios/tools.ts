/**
 * Tool-using scenarios: listing, reading, a denied write, a multi-step chain, a failing command and a
 * large tool result.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

/**
 * `Glob` and `LS` are not offered by CLI 2.1.332 in `-p` mode (the CLI answers "No such tool
 * available"), so the listing goes through Bash, as the CLI itself advises.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const fileListing: Scenario.Scenario = {
  name: "file_listing",
  description: "Glob (refused by this CLI: not available), then Bash `ls -R` lists the working directory.",
  prompt: "List the files in this directory.",
  files: { "README.md": "# demo\n", "src/main.ts": "console.log(1)\n", "src/util.ts": "export {}\n" },
  script: () =>
    Script.make([
      Script.turn([Script.toolUse("Glob", { pattern: "**/*" })]),
      Script.turn([Script.text("Glob is unavailable; using ls."), Script.toolUse("Bash", { command: "ls -R", description: "List files recursively" })]),
      Script.turn("There are three files: README.md, src/main.ts and src/util.ts.")
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const readFile: Scenario.Scenario = {
  name: "read_file",
  description: "Read of a file in the working directory, then a summary.",
  prompt: "What does notes.txt say?",
  files: { "notes.txt": "Buy milk\nCall Alice at 5pm\n" },
  script: ({ cwd }) =>
    Script.make([
      Script.turn([Script.text("I'll read it."), Script.toolUse("Read", { file_path: `${cwd}/notes.txt` })]),
      Script.turn("notes.txt has two reminders: buy milk, and call Alice at 5pm.")
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const createFile: Scenario.Scenario = {
  name: "create_file",
  description: "Write denied in the default permission mode: is_error tool_result and permission_denials in the result.",
  prompt: "Create hello.py that prints hello.",
  script: ({ cwd }) =>
    Script.make([
      Script.turn([Script.toolUse("Write", { file_path: `${cwd}/hello.py`, content: "print(\"hello\")\n" })]),
      Script.turn("I couldn't create hello.py: permission to write was not granted.")
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const complexToolChain: Scenario.Scenario = {
  name: "complex_tool_chain",
  description: "Bash, Read, Edit and Write across several turns (acceptEdits), one tool per turn then two at once.",
  prompt: "Fix the greeting in app.js and add a test file.",
  args: ["--permission-mode", "acceptEdits"],
  files: { "app.js": "console.log(\"helo world\")\n" },
  script: ({ cwd }) =>
    Script.make([
      Script.turn([Script.toolUse("Bash", { command: "ls", description: "List files" })]),
      Script.turn([Script.toolUse("Read", { file_path: `${cwd}/app.js` })]),
      Script.turn([
        Script.text("Fixing the typo."),
        Script.toolUse("Edit", { file_path: `${cwd}/app.js`, old_string: "helo world", new_string: "hello world" })
      ]),
      Script.turn([
        Script.toolUse("Write", { file_path: `${cwd}/app.test.js`, content: "require(\"./app.js\")\n" }),
        Script.toolUse("Bash", { command: "cat app.js app.test.js", description: "Show both files" })
      ]),
      Script.turn("Fixed the typo in app.js and added app.test.js.")
    ])
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const failingBash: Scenario.Scenario = {
  name: "failing_bash",
  description: "A Bash command exiting 1: is_error tool_result with the exit code and stderr.",
  prompt: "Show me missing.txt",
  script: () =>
    Script.make([
      Script.turn([Script.toolUse("Bash", { command: "cat missing.txt", description: "Print missing.txt" })]),
      Script.turn("missing.txt does not exist.")
    ])
}

const bigLog = Array.from({ length: 5000 }, (_, i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(70)}`).join("\n") + "\n"

/**
 * The CLI caps what a tool returns to the model (Bash output beyond `BASH_MAX_OUTPUT_LENGTH` is saved
 * to a file and replaced by a preview), so the limits are raised to let ~400 KB through.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const largeToolResult: Scenario.Scenario = {
  name: "large_tool_result",
  description: "Read of a ~400 KB file with raised output limits: a tool_result line of several hundred KB.",
  prompt: "Print the big log.",
  files: { "big.log": bigLog },
  env: { CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS: "500000", BASH_MAX_OUTPUT_LENGTH: "500000" },
  script: ({ cwd }) =>
    Script.make([
      Script.turn([Script.toolUse("Read", { file_path: `${cwd}/big.log`, limit: 6000 })]),
      Script.turn("big.log has 5000 lines.")
    ])
}
