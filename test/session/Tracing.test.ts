/**
 * Sessions in the caller's trace, against the real CLI on the scripted model: the CLI starts with the trace
 * context of the span around `Session.make` (`TRACEPARENT`, as the official SDKs pass it), which its own
 * tracing continues into its model requests, and each turn is a span with its tool calls as children.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as Telemetry from "../../src/Telemetry.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { recordingTracer } from "../layers/support.ts"
import { collect, setup } from "./support/Real.ts"

// The environment of a running process, as Linux shows it.
const environmentOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter((e) => e.includes("=")).map((e) => [
      e.slice(0, e.indexOf("=")),
      e.slice(e.indexOf("=") + 1)
    ])
  )

layer(NodeServices.layer, { excludeTestServices: true })("session tracing (real CLI)", (it) => {
  it.effect("turns and tool calls are spans under the caller's", () =>
    Effect.gen(function*() {
      const { tracer, spans } = recordingTracer()
      const { base } = yield* setup([Script.turn(Script.toolUse("Write", { file_path: "a.txt", content: "x" })), Script.turn("done")])
      const traced = Effect.gen(function*() {
        const session = yield* Session.make({ ...base, canUseTool: () => Effect.succeed(CanUseTool.allow()) })
        const environment = environmentOf(session.initialization.pid ?? session.pid)
        yield* collect(session.turn("write it"))
        return environment
      }).pipe(Effect.withSpan("app.request"), Effect.provideService(Tracer.Tracer, tracer))
      const environment = yield* traced
      const app = spans.find((s) => s.name === "app.request")!
      assert.strictEqual(environment.TRACEPARENT, `00-${app.traceId}-${app.spanId}-01`)
      const turn = spans.find((s) => s.name === Telemetry.turnSpanName)!
      assert.strictEqual(turn.traceId, app.traceId)
      assert.strictEqual(turn.parent._tag === "Some" ? turn.parent.value.spanId : "", app.spanId)
      const tool = spans.find((s) => s.name === `${Telemetry.toolSpanPrefix}Write`)!
      assert.strictEqual(tool.parent._tag === "Some" ? tool.parent.value.spanId : "", turn.spanId)
      assert.strictEqual(tool.status._tag, "Ended")
      assert.strictEqual(turn.attributes.get(Telemetry.attributes.turns), 2)
    }), 60_000)

  it.effect("the CLI's own model requests carry the caller's trace id", () =>
    Effect.gen(function*() {
      const { tracer, spans } = recordingTracer()
      const { base, server } = yield* setup([Script.turn("one")])
      // The CLI's OpenTelemetry tracing, exporting nowhere (nothing listens on port 9).
      const telemetry = {
        CLAUDE_CODE_ENABLE_TELEMETRY: "1",
        CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
        CLAUDE_CODE_PROPAGATE_TRACEPARENT: "1",
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_LOGS_EXPORTER: "none"
      }
      yield* Effect.gen(function*() {
        const session = yield* Session.make({ ...base, env: { ...base.env, ...telemetry } })
        yield* collect(session.turn("hi"))
      }).pipe(Effect.withSpan("app.request"), Effect.provideService(Tracer.Tracer, tracer))
      const app = spans.find((s) => s.name === "app.request")!
      const [request] = ScriptedServer.turnRequests(yield* server.requests)
      const traceparent = String(request.headers.traceparent)
      assert.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      assert.strictEqual(traceparent.split("-")[1], app.traceId)
      assert.notStrictEqual(traceparent.split("-")[2], app.spanId)
    }), 60_000)

  it.effect("a TRACEPARENT the caller sets is kept", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hi")])
      const given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
      const session = yield* Session.make({ ...base, env: { ...base.env, TRACEPARENT: given } }).pipe(
        Effect.withSpan("outer")
      )
      assert.strictEqual(environmentOf(session.initialization.pid ?? session.pid).TRACEPARENT, given)
    }), 60_000)
})
