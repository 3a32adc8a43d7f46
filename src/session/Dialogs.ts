/**
 * What the CLI asks a person through the session's host: the model's `AskUserQuestion`, an MCP server's
 * elicitation (a form or a URL), and the dialogs the session declared (`request_user_dialog`). A callback
 * that fails, dies, interrupts itself or misses its deadline (`dialogTimeout`, default 10 minutes) is a
 * decline, so the CLI never waits on it.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Control from "../schema/Control.ts"
import { describe } from "./internal/describe.ts"
import * as CanUseTool from "./CanUseTool.ts"

/**
 * One option of a question.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuestionOption = Schema.Struct({
  label: Schema.String,
  description: Schema.optionalKey(Schema.String),
  preview: Schema.optionalKey(Schema.String)
})

/**
 * A question the model asks with `AskUserQuestion`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Question = Schema.Struct({
  question: Schema.String,
  header: Schema.optionalKey(Schema.String),
  options: Schema.Array(QuestionOption),
  multiSelect: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Question = typeof Question.Type

const AskUserQuestionInput = Schema.Struct({ questions: Schema.Array(Question) })

/**
 * The answers by question text: an option's label, several joined by ", " for `multiSelect`, or free text.
 *
 * @since 0.1.0
 * @category models
 */
export type Answers = Readonly<Record<string, string>>

/**
 * Answers the model's questions.
 *
 * @since 0.1.0
 * @category models
 */
export type OnAskUserQuestion<R = never> = (
  questions: ReadonlyArray<Question>,
  context: { readonly toolUseId: string | undefined }
) => Effect.Effect<Answers, unknown, R>

/**
 * What an MCP server asks: a form (`requestedSchema`) or a URL to open (`mode: "url"`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Elicitation {
  readonly serverName: string
  readonly message: string
  readonly mode: "form" | "url"
  readonly url: string | undefined
  readonly elicitationId: string | undefined
  readonly requestedSchema: Readonly<Record<string, unknown>> | undefined
}

/**
 * The answer to an elicitation: `accept` with the form's `content`, `decline` or `cancel`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ElicitationResult {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Readonly<Record<string, unknown>> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type OnElicitation<R = never> = (request: Elicitation) => Effect.Effect<ElicitationResult, unknown, R>

/**
 * A dialog the CLI asks the host to render; its `payload` is the kind's own.
 *
 * @since 0.1.0
 * @category models
 */
export interface UserDialog {
  readonly dialogKind: string
  readonly payload: Readonly<Record<string, unknown>>
  readonly toolUseId: string | undefined
}

/**
 * The dialog's result in the kind's own shape, or `{ behavior: "cancelled" }` for the dialog's default.
 *
 * @since 0.1.0
 * @category models
 */
export type UserDialogResult = Readonly<Record<string, unknown>>

/**
 * @since 0.1.0
 * @category models
 */
export type OnUserDialog<R = never> = (dialog: UserDialog) => Effect.Effect<UserDialogResult, unknown, R>

/**
 * The dialog callbacks of a session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callbacks<R = never> {
  readonly onAskUserQuestion?: OnAskUserQuestion<R> | undefined
  readonly onElicitation?: OnElicitation<R> | undefined
  readonly onUserDialog?: OnUserDialog<R> | undefined
  /** How long a person may take. Default 10 minutes. */
  readonly dialogTimeout?: Duration.Input | undefined
}

/**
 * The result that cancels a dialog: the CLI applies the dialog's default.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cancelled: UserDialogResult = { behavior: "cancelled" }

const defaultTimeout = Duration.minutes(10)

// The callback's value, or `onFailure` with why it failed, was late or interrupted itself. An interruption
// from outside (the CLI withdrew the request, the session ends) stops this fiber before `onFailure` runs.
const settle = <A, R>(
  effect: Effect.Effect<A, unknown, R>,
  timeout: Duration.Input | undefined,
  onFailure: (why: string) => A
): Effect.Effect<A, never, R> => {
  const deadline = Duration.fromInputUnsafe(timeout ?? defaultTimeout)
  return Effect.suspend(() => effect).pipe(
    Effect.timeoutOrElse({
      duration: deadline,
      orElse: () => Effect.fail(`no answer within ${Duration.toMillis(deadline)} ms (dialogTimeout)`)
    }),
    Effect.exit,
    Effect.flatMap((exit) =>
      Exit.isSuccess(exit)
        ? Effect.succeed(exit.value)
        : Effect.succeed(onFailure(
          Cause.hasInterruptsOnly(exit.cause) ? "the callback was interrupted before it answered" : describe(exit.cause)
        ))
    )
  )
}

/**
 * The permission answer to an `AskUserQuestion` call: allowed with the answers added to its input, or denied
 * (the question unanswered) when the callback fails, is late, or the input has no questions.
 *
 * @since 0.1.0
 * @category running
 */
export const askUserQuestion = <R>(
  callbacks: Callbacks<R>,
  onAsk: OnAskUserQuestion<R>,
  request: Control.CanUseToolRequest
): Effect.Effect<Record<string, unknown>, never, R> =>
  Schema.decodeUnknownEffect(AskUserQuestionInput)(request.input).pipe(
    Effect.mapError((error) => `the questions do not decode: ${error.message}`),
    Effect.flatMap(({ questions }) => onAsk(questions, { toolUseId: request.tool_use_id })),
    Effect.map((answers) => CanUseTool.allow({ updatedInput: { ...request.input, answers } })),
    (effect) =>
      settle(effect, callbacks.dialogTimeout, (why) => CanUseTool.deny(`The user did not answer: ${why}`)),
    Effect.flatMap((decision) => CanUseTool.decide(() => Effect.succeed(decision), request))
  )

/**
 * The answer to an elicitation; without a callback, or when it fails or is late, a decline.
 *
 * @since 0.1.0
 * @category running
 */
export const elicit = <R>(
  callbacks: Callbacks<R>,
  request: Control.ElicitationRequest
): Effect.Effect<ElicitationResult, never, R> =>
  callbacks.onElicitation === undefined
    ? Effect.succeed({ action: "decline" })
    : settle(
      callbacks.onElicitation({
        serverName: request.mcp_server_name,
        message: request.message,
        mode: request.mode === "url" ? "url" : "form",
        url: request.url,
        elicitationId: request.elicitation_id,
        requestedSchema: request.requested_schema
      }),
      callbacks.dialogTimeout,
      (): ElicitationResult => ({ action: "decline" })
    )

/**
 * The answer to a dialog; when the callback fails or is late, `cancelled`. Without a callback the request
 * is refused with `undefined`: another client may render it.
 *
 * @since 0.1.0
 * @category running
 */
export const dialog = <R>(
  callbacks: Callbacks<R>,
  request: Control.RequestUserDialogRequest
): Effect.Effect<UserDialogResult, never, R> | undefined =>
  callbacks.onUserDialog === undefined ? undefined : settle(
    callbacks.onUserDialog({ dialogKind: request.dialog_kind, payload: request.payload, toolUseId: request.tool_use_id }),
    callbacks.dialogTimeout,
    () => cancelled
  )
