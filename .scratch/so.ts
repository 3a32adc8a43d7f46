import { Effect, Stream } from "effect"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as Scripted from "../src/layers/Scripted.ts"
import * as Script from "../src/testing/Script.ts"
import * as ScriptedServer from "../src/testing/ScriptedServer.ts"

const program = Effect.gen(function*() {
  const msgs = yield* ClaudeCli.query("Give me a person", { jsonSchema: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] } }).pipe(Stream.runCollect)
  for (const m of msgs) console.log(JSON.stringify(m).slice(0, 600))
  const server = yield* ScriptedServer.ScriptedServer
  const reqs = yield* server.requests
  for (const r of reqs) console.log(r.kind, JSON.stringify((r.body as any)?.tools?.map((t: any) => t.name)), JSON.stringify((r.body as any)?.tools?.find((t: any) => t.name === "StructuredOutput")))
}).pipe(Effect.provide(Scripted.layer(Script.make([
  Script.turn(Script.toolUse("StructuredOutput", { name: "Ada", age: "x" })),
  Script.turn(Script.toolUse("StructuredOutput", { name: "Ada", age: 36 })),
  Script.turn("Done.")
]))))
Effect.runPromise(program).catch((e) => console.error("ERR", e))
