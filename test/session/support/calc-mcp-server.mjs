// A stdio MCP server for tests: `add` answers the sum as text and as structuredContent, `broken` answers its
// own error result (isError). Each call is appended to the file named by its first argument, so a test counts
// the calls that reached it.
import * as fs from "node:fs"
import * as readline from "node:readline"

const log = process.argv[2]
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n")
const object = (properties) => ({ type: "object", properties })

const handle = (message) => {
  switch (message.method) {
    case "initialize":
      return {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "calc", version: "1.0.0" }
      }
    case "ping":
      return {}
    case "tools/list":
      return {
        tools: [
          { name: "add", description: "Adds two numbers", inputSchema: object({ a: { type: "number" }, b: { type: "number" } }) },
          { name: "broken", description: "Always fails", inputSchema: object({}) }
        ]
      }
    case "tools/call": {
      const { name, arguments: args } = message.params
      fs.appendFileSync(log, `${name}\n`)
      return name === "add"
        ? { content: [{ type: "text", text: `sum=${args.a + args.b}` }], structuredContent: { sum: args.a + args.b } }
        : { content: [{ type: "text", text: "it broke" }], isError: true }
    }
    default:
      throw new Error(`method not found: ${message.method}`)
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return
  const message = JSON.parse(line)
  if (message.id === undefined) return
  try {
    send({ jsonrpc: "2.0", id: message.id, result: handle(message) })
  } catch (error) {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: String(error.message) } })
  }
})
