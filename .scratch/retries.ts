import { Effect, Stream } from "effect"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as Scripted from "../src/layers/Scripted.ts"
import * as Script from "../src/testing/Script.ts"
const bad = Script.turn(Script.toolUse("StructuredOutput", { name: 1 }))
const program = Effect.gen(function*() {
  const msgs = yield* ClaudeCli.query("Give me a person", { jsonSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }).pipe(Stream.runCollect)
  for (const m of msgs) if (m._tag !== "AssistantMessage" && m._tag !== "UserMessage") console.log(JSON.stringify(m).slice(0, 400))
  console.log(msgs.filter(m => m._tag === "AssistantMessage").length)
}).pipe(Effect.provide(Scripted.layer(Script.make(Array.from({ length: 12 }, () => bad)))))
Effect.runPromise(program).catch((e) => console.error("ERR", String(e).slice(0, 500)))
