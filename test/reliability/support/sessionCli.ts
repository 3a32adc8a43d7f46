/**
 * A stand-in CLI that speaks just enough of the session protocol for host-death tests:
 * `node sessionCli.ts <dir> [claude args...]`. It answers `initialize`; for each user message it replays it,
 * starts a tool process (`sleep`, its pid appended to `<dir>/children`) and writes the hello turn's first two
 * lines, never its result. Its own pid goes to `<dir>/pids`.
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"

const dir = process.argv[2]!
const hello = fs.readFileSync(
  new URL("../../../fixtures/corpus/guess__claude_code__test__fixtures__cli_messages__simple_hello.jsonl", import.meta.url),
  "utf8"
).split("\n").filter((line) => line.trim() !== "")
fs.appendFileSync(path.join(dir, "pids"), `${process.pid}\n`)
const write = (value: unknown) => process.stdout.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`)

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const frame = JSON.parse(line)
  if (frame.type === "control_request") {
    write({ type: "control_response", response: { subtype: "success", request_id: frame.request_id, response: frame.request.subtype === "initialize" ? { commands: [], models: [] } : {} } })
  } else if (frame.type === "user") {
    write({ type: "user", isReplay: true, message: frame.message, parent_tool_use_id: null, uuid: frame.uuid, session_id: frame.session_id })
    const tool = childProcess.spawn("sleep", ["300"], { stdio: "ignore" })
    fs.appendFileSync(path.join(dir, "children"), `${tool.pid}\n`)
    hello.slice(0, 2).forEach(write)
  }
})
