/**
 * The control protocol over any transport that writes one JSON frame per line: requests out with ids and
 * timeouts, their responses as values or typed errors, and the CLI's requests dispatched to a handler, each
 * answered exactly once unless the CLI cancels it. Frames are typed by `Control` of `effect-claude-code/schema`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Control from "../schema/Control.ts"
import { describe } from "./internal/describe.ts"
import * as Immutable from "./internal/immutable.ts"
import * as SessionError from "./SessionError.ts"

/**
 * Every control frame the CLI may write among its messages.
 *
 * @since 0.1.0
 * @category models
 */
export type ControlFrame = Control.ControlRequest | Control.ControlResponse | Control.ControlCancelRequest

/**
 * Whether a decoded message is a control frame rather than output for the application.
 *
 * @since 0.1.0
 * @category guards
 */
export const isControlFrame = (message: { readonly _tag: string }): message is ControlFrame =>
  message._tag === "ControlRequest" || message._tag === "ControlResponse" || message._tag === "ControlCancelRequest"

/**
 * Answers one incoming request: the success payload, or a failure whose message goes back as the error.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler = (request: Control.RequestBody) => Effect.Effect<unknown, unknown>

/**
 * @since 0.1.0
 * @category models
 */
export interface Protocol {
  /**
   * Sends a request and waits for its answer. Fails with `ControlTimeout` after `timeout` (default 60 s),
   * writing the request included; a request the CLI was sent is then withdrawn with `control_cancel_request`.
   * `written` is completed once the request is written: what is written after that, the CLI reads after it,
   * so a caller can send more without waiting for the answer.
   */
  readonly request: (
    request: Readonly<Record<string, unknown>> & { readonly subtype: string },
    options?: {
      readonly timeout?: Duration.Input | undefined
      readonly written?: Deferred.Deferred<void> | undefined
    }
  ) => Effect.Effect<unknown, SessionError.SessionError>
  /** Feeds one frame from the CLI. Incoming requests are handled in the background. */
  readonly receive: (frame: ControlFrame) => Effect.Effect<void>
  /** Answers an incoming request that could not be read with an error, so that the CLI is never left waiting. */
  readonly reject: (requestId: string, error: string) => Effect.Effect<void>
  /** Fails every pending request and any later one (the transport is gone). */
  readonly closeWith: (error: SessionError.SessionError) => Effect.Effect<void>
}

interface Pending {
  readonly subtype: string
  readonly deferred: Deferred.Deferred<unknown, SessionError.SessionError>
}

interface State {
  /** Requests sent so far, for the next id. */
  readonly sent: number
  /** The error every request fails with once the transport is gone. */
  readonly closed: SessionError.SessionError | undefined
  /** The requests that wait for an answer, by id. */
  readonly pending: ReadonlyMap<string, Pending>
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
  /** Told when an answer to an incoming request could not be written as it was (see `answer`). */
  readonly report?: ((error: SessionError.SessionError) => Effect.Effect<void>) | undefined
}): Effect.fn.Return<Protocol, never, Scope.Scope> {
  const state = yield* Ref.make<State>({ sent: 0, closed: undefined, pending: new Map() })
  // Takes a request out of those pending: whoever takes it settles it, once.
  const take = (id: string) =>
    Ref.modify(state, (s): readonly [Pending | undefined, State] => {
      const [entry, pending] = Immutable.take(s.pending, id)
      return [entry, { ...s, pending }]
    })
  // Ids unique across sessions, so that a stray response can never match another session's request.
  const prefix = Math.random().toString(36).slice(2, 10)
  const handling = yield* FiberMap.make<string>()
  const scope = yield* Effect.scope
  const defaultTimeout = Duration.fromInputUnsafe(options.defaultTimeout ?? Duration.seconds(60))

  // Registers a request, unless the transport is gone: its id, or the error it fails with.
  const register = (subtype: string, deferred: Pending["deferred"]) =>
    Effect.flatMap(
      Ref.modify(state, (s): readonly [Result.Result<string, SessionError.SessionError>, State] => {
        if (s.closed !== undefined) return [Result.fail(s.closed), s]
        const id = `req_${s.sent + 1}_${prefix}`
        return [Result.succeed(id), { ...s, sent: s.sent + 1, pending: new Map(s.pending).set(id, { subtype, deferred }) }]
      }),
      Effect.fromResult
    )

  const request: Protocol["request"] = (body, opts) =>
    Effect.gen(function*() {
      const deferred = yield* Deferred.make<unknown, SessionError.SessionError>()
      const written = yield* Deferred.make<void>()
      const timeout = opts?.timeout === undefined ? defaultTimeout : Duration.fromInputUnsafe(opts.timeout)
      // Withdraws a request the CLI has seen. In the background: stdin may be the very thing that is stuck, and
      // the caller gets its answer (timeout, interruption) without waiting for the withdrawal to go through.
      const cancel = (id: string) =>
        Effect.flatMap(take(id), (entry) =>
          entry !== undefined && Deferred.isDoneUnsafe(written)
            ? Effect.asVoid(Effect.forkIn(options.write({ type: "control_cancel_request", request_id: id }), scope))
            : Effect.void)
      // The write is under the deadline too: a CLI that stops reading stdin must not hold the caller forever.
      const send = (id: string) =>
        options.write({ type: "control_request", request_id: id, request: body }).pipe(
          Effect.andThen(Deferred.succeed(written, undefined)),
          Effect.andThen(opts?.written === undefined ? Effect.void : Deferred.succeed(opts.written, undefined)),
          Effect.andThen(Deferred.await(deferred)),
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.andThen(
                cancel(id),
                Effect.fail(SessionError.make(
                  new SessionError.ControlTimeout({ subtype: body.subtype, timeoutMillis: Duration.toMillis(timeout) })
                ))
              )
          }),
          Effect.onInterrupt(() => cancel(id))
        )
      return yield* Effect.acquireUseRelease(register(body.subtype, deferred), send, take)
    })

  const report = options.report ?? (() => Effect.void)
  const respond = (id: string, body: Record<string, unknown>) =>
    options.write({ type: "control_response", response: { request_id: id, ...body } })

  const reject = (id: string, error: string) => Effect.ignore(respond(id, { subtype: "error", error }))

  // An answer that cannot be written (it is not JSON) goes back as an error, so that the CLI never waits on
  // it; either way the failure is reported.
  const succeed = (id: string, subtype: string, response: unknown) =>
    respond(id, { subtype: "success", response: response ?? {} }).pipe(
      Effect.catch((error) =>
        Effect.andThen(
          report(SessionError.make(
            new SessionError.CallbackFailed({ callback: `the answer to "${subtype}"`, detail: error.message })
          )),
          error.reason._tag === "SessionClosed" ? Effect.void : reject(id, `the answer could not be written: ${error.message}`)
        )
      )
    )

  const answer = (id: string, subtype: string, exit: Exit.Exit<unknown, unknown>) =>
    Exit.isSuccess(exit)
      ? succeed(id, subtype, exit.value)
      // The handler interrupted itself. Cancelled by the CLI (it wants no answer) or the session ending, the
      // handling fiber is interrupted and never gets here.
      : Cause.hasInterruptsOnly(exit.cause)
      ? reject(id, `the handler of "${subtype}" was interrupted before it answered`)
      : reject(id, describe(exit.cause))

  const settle = (frame: Control.ControlResponse): Effect.Effect<void> =>
    Effect.flatMap(take(frame.requestId), (entry) => {
      // Responses to requests nobody waits for (timed out, cancelled) are dropped, as the protocol says.
      if (entry === undefined) return Effect.void
      const response = frame.response
      return (response.subtype === "success"
        ? Deferred.succeed(entry.deferred, response.response ?? {})
        : Deferred.fail(
          entry.deferred,
          SessionError.make(new SessionError.ControlRequestFailed({ subtype: entry.subtype, error: response.error }))
        )).pipe(Effect.asVoid)
    })

  const receive = (frame: ControlFrame): Effect.Effect<void> => {
    switch (frame.type) {
      case "control_response":
        return settle(frame)
      case "control_cancel_request":
        return FiberMap.remove(handling, frame.request_id)
      case "control_request": {
        const id = frame.request_id
        return FiberMap.run(
          handling,
          id,
          Effect.suspend(() => options.handler(frame.request)).pipe(
            Effect.exit,
            Effect.flatMap((exit) => answer(id, frame.request.subtype, exit))
          )
        ).pipe(Effect.asVoid)
      }
    }
  }

  const closeWith = (error: SessionError.SessionError) =>
    Effect.flatMap(
      Ref.modify(state, (s): readonly [Iterable<Pending>, State] => [s.pending.values(), { ...s, closed: error, pending: new Map() }]),
      (all) => Effect.forEach(all, (p) => Deferred.fail(p.deferred, error), { discard: true })
    )

  return { request, receive, reject, closeWith }
})

/**
 * The error answered to a request of a subtype this side does not handle: a reason of
 * `Incoming.CallbackError`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnsupportedRequest extends Schema.TaggedError<UnsupportedRequest>()("UnsupportedRequest", {
  subtype: Schema.String
}) {
  override get message(): string {
    return `Unsupported control request subtype: ${this.subtype}`
  }
}
