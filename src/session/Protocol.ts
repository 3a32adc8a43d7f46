/**
 * The control protocol over any transport that writes one JSON frame per line: outgoing requests with ids,
 * correlation of responses, per-request timeouts (withdrawn with `control_cancel_request`), errors from the CLI
 * as typed errors, and incoming requests dispatched to a handler, each answered exactly once (unknown ones with
 * an error, never ignored).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SessionError from "./SessionError.ts"

/**
 * An incoming `control_request`.
 *
 * @since 0.1.0
 * @category models
 */
export const IncomingRequest = Schema.Struct({
  type: Schema.Literal("control_request"),
  request_id: Schema.String,
  request: Schema.Record(Schema.String, Schema.Unknown).pipe(
    Schema.check(Schema.makeFilter((r) => typeof r.subtype === "string" || "request.subtype must be a string"))
  )
})

/**
 * @since 0.1.0
 * @category models
 */
export type IncomingRequest = typeof IncomingRequest.Type

/**
 * @since 0.1.0
 * @category models
 */
export const ControlResponse = Schema.Struct({
  type: Schema.Literal("control_response"),
  response: Schema.Struct({
    subtype: Schema.Literals(["success", "error"]),
    request_id: Schema.String,
    response: Schema.optional(Schema.Unknown),
    error: Schema.optional(Schema.String)
  })
})

/**
 * @since 0.1.0
 * @category models
 */
export const CancelRequest = Schema.Struct({
  type: Schema.Literal("control_cancel_request"),
  request_id: Schema.String
})

/**
 * Every control frame the CLI may write among its messages.
 *
 * @since 0.1.0
 * @category models
 */
export const ControlFrame = Schema.Union([IncomingRequest, ControlResponse, CancelRequest])

/**
 * @since 0.1.0
 * @category models
 */
export type ControlFrame = typeof ControlFrame.Type

/**
 * Whether a parsed stdout line is a control frame rather than a message.
 *
 * @since 0.1.0
 * @category guards
 */
export const isControlType = (type: unknown): boolean =>
  type === "control_request" || type === "control_response" || type === "control_cancel_request"

/**
 * Decodes a control frame from a parsed line.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeFrame = Schema.decodeUnknownEffect(ControlFrame)

/**
 * Answers one incoming request: the success payload, or a failure whose message goes back as the error.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler = (request: IncomingRequest["request"]) => Effect.Effect<unknown, unknown>

/**
 * @since 0.1.0
 * @category models
 */
export interface Protocol {
  /** Sends a request and waits for its answer; times out after `timeout` (default 60 s), cancelling it. */
  readonly request: (
    request: Readonly<Record<string, unknown>> & { readonly subtype: string },
    options?: { readonly timeout?: Duration.Input | undefined }
  ) => Effect.Effect<unknown, SessionError.SessionError>
  /** Feeds one frame from the CLI. Incoming requests are handled in the background. */
  readonly receive: (frame: ControlFrame) => Effect.Effect<void>
  /** Fails every pending request (the transport is gone). */
  readonly closeWith: (error: SessionError.SessionError) => Effect.Effect<void>
}

const describe = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

interface Pending {
  readonly subtype: string
  readonly deferred: Deferred.Deferred<unknown, SessionError.SessionError>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: {
  /** Writes one frame (a JSON-serialisable object) to the CLI. */
  readonly write: (frame: Record<string, unknown>) => Effect.Effect<void, SessionError.SessionError>
  readonly handler: Handler
  readonly defaultTimeout?: Duration.Input | undefined
}): Effect.fn.Return<Protocol, never, Scope.Scope> {
  const pending = new Map<string, Pending>()
  let counter = 0
  let closed: SessionError.SessionError | undefined
  const prefix = Math.random().toString(36).slice(2, 10)
  const handling = yield* FiberMap.make<string>()
  const defaultTimeout = Duration.fromInputUnsafe(options.defaultTimeout ?? Duration.seconds(60))

  const request: Protocol["request"] = (body, opts) =>
    Effect.suspend(() => {
      if (closed !== undefined) return Effect.fail(closed)
      const id = `req_${++counter}_${prefix}`
      const timeout = opts?.timeout === undefined ? defaultTimeout : Duration.fromInputUnsafe(opts.timeout)
      const cancel = Effect.suspend(() =>
        pending.delete(id)
          ? options.write({ type: "control_cancel_request", request_id: id }).pipe(Effect.ignore)
          : Effect.void
      )
      return Effect.gen(function*() {
        const deferred = yield* Deferred.make<unknown, SessionError.SessionError>()
        pending.set(id, { subtype: body.subtype, deferred })
        yield* options.write({ type: "control_request", request_id: id, request: body })
        return yield* Deferred.await(deferred).pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.andThen(
                cancel,
                Effect.fail(SessionError.make(
                  new SessionError.ControlTimeout({ subtype: body.subtype, timeoutMillis: Duration.toMillis(timeout) })
                ))
              )
          })
        )
      }).pipe(Effect.onInterrupt(() => cancel), Effect.ensuring(Effect.sync(() => pending.delete(id))))
    })

  const answer = (id: string, exit: Exit.Exit<unknown, unknown>) => {
    if (Exit.isSuccess(exit)) {
      return options.write({
        type: "control_response",
        response: { subtype: "success", request_id: id, response: exit.value ?? {} }
      })
    }
    if (Cause.hasInterruptsOnly(exit.cause)) return Effect.void
    return options.write({
      type: "control_response",
      response: { subtype: "error", request_id: id, error: describe(exit.cause) }
    })
  }

  const receive = (frame: ControlFrame): Effect.Effect<void> => {
    switch (frame.type) {
      case "control_response": {
        const entry = pending.get(frame.response.request_id)
        // Responses to requests nobody waits for (timed out, cancelled) are dropped, as the protocol says.
        if (entry === undefined) return Effect.void
        pending.delete(frame.response.request_id)
        return frame.response.subtype === "success"
          ? Deferred.succeed(entry.deferred, frame.response.response).pipe(Effect.asVoid)
          : Deferred.fail(
            entry.deferred,
            SessionError.make(
              new SessionError.ControlRequestFailed({
                subtype: entry.subtype,
                error: frame.response.error ?? "unknown error"
              })
            )
          ).pipe(Effect.asVoid)
      }
      case "control_cancel_request":
        return FiberMap.remove(handling, frame.request_id)
      case "control_request": {
        const id = frame.request_id
        return FiberMap.run(
          handling,
          id,
          Effect.suspend(() => options.handler(frame.request)).pipe(
            Effect.exit,
            Effect.flatMap((exit) => answer(id, exit)),
            Effect.ignore
          )
        ).pipe(Effect.asVoid)
      }
    }
  }

  const closeWith = (error: SessionError.SessionError) =>
    Effect.suspend(() => {
      closed = error
      const all = [...pending.values()]
      pending.clear()
      return Effect.forEach(all, (p) => Deferred.fail(p.deferred, error), { discard: true })
    })

  return { request, receive, closeWith }
})

/**
 * The error answered to a request of a subtype this side does not handle.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedRequest extends Schema.TaggedError<UnsupportedRequest>()("UnsupportedRequest", {
  subtype: Schema.String
}) {
  override get message(): string {
    return `Unsupported control request subtype: ${this.subtype}`
  }
}
