/**
 * Scenarios with more than one conversation: a Task subagent, and a multi-turn stream-json session.
 *
 * @since 0.1.0
 */
import * as MessagesRequest from "../../MessagesRequest.ts"
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

const subagentPrompt = "Count the files in the working directory and report the number."

/**
 * The subagent's requests carry their own conversation, starting from the Task prompt; the script
 * routes them by that prompt.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const subagent: Scenario.Scenario = {
  name: "subagent",
  description:
    "Task tool: a background general-purpose subagent runs Bash (messages with parent_tool_use_id); the main agent answers its completion notice.",
  prompt: "Use a subagent to count the files here.",
  files: { "a.txt": "a\n", "b.txt": "b\n" },
  script: () =>
    Script.make([
      Script.turn([
        Script.text("Delegating to a subagent."),
        Script.toolUse("Task", { description: "Count files", prompt: subagentPrompt, subagent_type: "general-purpose" })
      ]),
      // CLI 2.1.332 runs the agent in the background: the main agent answers the launch, then gets a
      // task notification as a new user message when the agent is done.
      Script.turn("The subagent is counting the files."),
      Script.turn("The subagent found 2 files.")
    ], {
      subagents: [
        Script.conversation("subagent", MessagesRequest.firstUserTextIncludes(subagentPrompt), [
          Script.turn([Script.toolUse("Bash", { command: "ls | wc -l", description: "Count files" })]),
          Script.turn("There are 2 files.")
        ])
      ]
    })
}

/**
 * @since 0.1.0
 * @category scenarios
 */
export const streamJsonSession: Scenario.Scenario = {
  name: "stream_json_session",
  description: "--input-format stream-json: three user messages on stdin, each sent after the previous result.",
  prompt: "",
  input: ["My name is Ada.", "What is 2 + 2?", "What is my name?"],
  script: () =>
    Script.make([
      Script.turn("Nice to meet you, Ada."),
      Script.turn("2 + 2 = 4."),
      Script.turn("Your name is Ada.")
    ])
}
