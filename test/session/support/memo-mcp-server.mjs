// A stdio MCP server for tests: one resource (ui://memo/one, the scheme the CLI reads for hosts) and one tool (ask_name) that asks its client for a
// name through an elicitation and answers with what it got.
import * as readline from "node:readline"

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n")
const waiting = new Map()
let next = 0

const elicit = (params) =>
  new Promise((resolve) => {
    const id = `elicit-${++next}`
    waiting.set(id, resolve)
    send({ jsonrpc: "2.0", id, method: "elicitation/create", params })
  })

const handle = async (message) => {
  switch (message.method) {
    case "initialize":
      return {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: "memo", version: "1.0.0" }
      }
    case "ping":
      return {}
    case "tools/list":
      return { tools: [{ name: "ask_name", description: "Asks the user for a name", inputSchema: { type: "object", properties: {} } }] }
    case "tools/call": {
      const answer = await elicit({
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
      })
      const text = answer.action === "accept" ? `name=${answer.content?.name}` : `elicitation ${answer.action}`
      return { content: [{ type: "text", text }] }
    }
    case "resources/list":
      return { resources: [{ uri: "ui://memo/one", name: "one", mimeType: "text/plain" }] }
    case "resources/read":
      return { contents: [{ uri: message.params.uri, mimeType: "text/plain", text: "MEMO-TEXT-ONE" }] }
    default:
      throw new Error(`method not found: ${message.method}`)
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return
  const message = JSON.parse(line)
  if (message.method === undefined && waiting.has(message.id)) {
    waiting.get(message.id)(message.result ?? { action: "cancel" })
    waiting.delete(message.id)
    return
  }
  if (message.id === undefined) return
  handle(message).then(
    (result) => send({ jsonrpc: "2.0", id: message.id, result }),
    (error) => send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: String(error.message) } })
  )
})
