/**
 * A fake Anthropic Messages API on 127.0.0.1 (random free port) that answers the Claude Code CLI from a
 * {@link Script.Script}, built on Effect's HTTP server and stopped with its Scope. Every request is
 * recorded, with its answer, for assertions.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Http from "node:http"
import * as MessagesRequest from "./MessagesRequest.ts"
import * as Script from "./Script.ts"
import * as Sse from "./internal/Sse.ts"

/**
 * How the server answered a request.
 *
 * - `turn`: a scripted turn was streamed; `failure`: a scripted API error; `exhausted`: the script had
 *   no turn (400); `side`: a non-streaming side request; `count_tokens`; `other`: 200 `{}`.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestKind = "turn" | "failure" | "exhausted" | "side" | "count_tokens" | "other"

/**
 * @since 0.1.0
 * @category models
 */
export interface RecordedRequest {
  readonly method: string
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, the raw text when it is not JSON, `undefined` when empty. */
  readonly body: unknown
  readonly kind: RequestKind
  readonly conversation?: string | undefined
  readonly turn?: number | undefined
  /** 0-based attempt at this conversation turn (retries increase it). */
  readonly attempt?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** Base URL for `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  readonly port: number
  /** Every request received so far, in arrival order. */
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
}

/**
 * @since 0.1.0
 * @category services
 */
export class ScriptedServer extends Context.Service<ScriptedServer, Shape>()(
  "effect-claude-code/testing/ScriptedServer"
) {}

const parseBody = (text: string): unknown => {
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify(body), { status, headers, contentType: "application/json" })

const sanitize = (s: string) => s.replace(/[^A-Za-z0-9]/g, "")

/**
 * The server could not listen on a loopback port (no free port, loopback unavailable).
 *
 * @since 0.1.0
 * @category reasons
 */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `The scripted server could not listen on 127.0.0.1: ${this.description}`
  }
}

/**
 * Every reason a `ScriptedServerError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([ListenFailed])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * The scripted server could not start. Recover by reason with
 * `Effect.catchReason("ScriptedServerError", "ListenFailed", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ScriptedServerError extends Schema.TaggedError<ScriptedServerError>()("ScriptedServerError", {
  reason: Reason
}) {
  override get message(): string {
    return this.reason.message
  }
}

// Routes:
// - `POST /v1/messages` with `stream: true`: the scripted turn as SSE, or an API error for its first
//   attempts, or a 400 naming the missing turn when the script runs out.
// - `POST /v1/messages` without `stream` (side requests such as titles): a short message; no turn consumed.
// - `POST /v1/messages/count_tokens`: an estimate from the body size.
// - anything else (HEAD/GET probes, telemetry): 200 `{}`.
// Recorded from CLI 2.1.330: in `-p` and stream-json input modes only streaming `POST /v1/messages?beta=true`
// (one per model turn and per retry; a Task subagent's requests carry their own conversation) and, unless
// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` is set, a `HEAD /api/hello` probe. Side requests and
// count_tokens are answered in case other versions or modes send them.

/**
 * Start a server for `script` on 127.0.0.1 at a free port; it stops when the scope closes.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Script, ScriptedServer } from "effect-claude-code/testing"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* ScriptedServer.make(Script.make([Script.turn("Hello!")]))
 *   // run `claude` with ANTHROPIC_BASE_URL=server.url, then:
 *   return yield* server.requests
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  script: Script.Script
): Effect.fn.Return<Shape, ScriptedServerError, Scope.Scope> {
  const recorded = yield* Ref.make<ReadonlyArray<RecordedRequest>>([])
  const attempts = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
  const counter = yield* Ref.make(0)
  const record = (r: RecordedRequest) => Ref.update(recorded, (all) => [...all, r])
  const nextId = Ref.modify(counter, (n) => [n + 1, n + 1] as const)

  const answer = (request: MessagesRequest.MessagesRequest, base: Omit<RecordedRequest, "kind">) =>
    Effect.gen(function*() {
      const n = yield* nextId
      const messageId = `msg_scripted_${String(n).padStart(4, "0")}`
      if (request.stream !== true) {
        yield* record({ ...base, kind: "side" })
        return json(Sse.nonStreamingMessage(script.sideReply, { messageId, model: request.model }))
      }
      const position = Script.locate(script, request)
      const key = `${position.conversation}#${position.index}`
      const attempt = yield* Ref.modify(attempts, (m) => {
        const a = m.get(key) ?? 0
        return [a, new Map(m).set(key, a + 1)] as const
      })
      const outcome = Script.outcome(position, attempt)
      const where = { conversation: position.conversation, turn: position.index, attempt }
      if (outcome._tag !== "Answer") {
        yield* record({ ...base, ...where, kind: outcome._tag === "Fail" ? "failure" : "exhausted" })
        const retryAfter = outcome.error.retryAfterSeconds
        return json(
          Sse.errorBody(outcome.error, `req_scripted_${n}`),
          outcome.error.status,
          retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }
        )
      }
      yield* record({ ...base, ...where, kind: "turn" })
      const turn = outcome.turn
      const events = Sse.encodeTurn(turn, {
        messageId,
        model: request.model,
        toolUseIdPrefix: `toolu_${sanitize(position.conversation)}${position.index}`
      })
      const body = Stream.fromIterable(events).pipe(
        Stream.mapEffect((e) =>
          turn.eventDelay === undefined ? Effect.succeed(e) : Effect.as(Effect.sleep(turn.eventDelay), e)
        ),
        Stream.map((e) => new TextEncoder().encode(Sse.format(e)))
      )
      return HttpServerResponse.stream(body, {
        contentType: "text/event-stream",
        headers: { "cache-control": "no-cache", "request-id": `req_scripted_${n}` }
      })
    })

  const app = Effect.gen(function*() {
    const req = yield* HttpServerRequest.HttpServerRequest
    const text = yield* Effect.orElseSucceed(req.text, () => "")
    const path = req.url.split("?")[0]
    const base = { method: req.method, url: req.url, headers: { ...req.headers }, body: parseBody(text) }
    if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
      yield* record({ ...base, kind: "count_tokens" })
      return json({ input_tokens: Math.max(1, Math.ceil(text.length / 4)) })
    }
    const request = req.method === "POST" && path.endsWith("/messages")
      ? MessagesRequest.decode(base.body)
      : Option.none()
    if (Option.isSome(request)) return yield* answer(request.value, base)
    yield* record({ ...base, kind: "other" })
    return json({})
  })

  const server = yield* NodeHttpServer.make(() => Http.createServer(), { port: 0, host: "127.0.0.1" }).pipe(
    Effect.tap((server) => server.serve(app)),
    Effect.mapError((error) =>
      new ScriptedServerError({ reason: new ListenFailed({ description: String(error.cause), cause: error.cause }) })
    )
  )
  const port = "port" in server.address ? server.address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: Ref.get(recorded)
  }
})

/**
 * The server as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (script: Script.Script): Layer.Layer<ScriptedServer, ScriptedServerError> =>
  Layer.effect(ScriptedServer, make(script))

/**
 * Requests that asked for a scripted turn (streamed or failed), in order.
 *
 * @since 0.1.0
 * @category getters
 */
export const turnRequests = (requests: ReadonlyArray<RecordedRequest>): ReadonlyArray<RecordedRequest> =>
  requests.filter((r) => r.kind === "turn" || r.kind === "failure" || r.kind === "exhausted")
