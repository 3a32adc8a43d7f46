/**
 * Helpers every session test uses: collecting a stream, letting forked fibers run, looking at a fiber.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type * as Session from "../../../src/session/Session.ts"

export const collect = <E>(stream: Stream.Stream<Session.Message, E>) => Stream.runCollect(stream)

/** Lets forked fibers run up to their next wait. */
export const settle = Effect.gen(function*() {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

/** Whether a fiber has ended. */
export const isDone = (fiber: Fiber.Fiber<unknown, unknown>) => fiber.pollUnsafe() !== undefined

/** The result text of each result message, other messages by tag. */
export const outline = (messages: ReadonlyArray<Session.Message>) =>
  messages.map((m) => m._tag === "ResultSuccess" ? m.result : m._tag)

/** The reason of an error, asserted to be an instance of `error` whose reason is an instance of `reason`. */
export const reasonOf = <R>(
  error: unknown,
  errorClass: new(...args: any) => { readonly reason: unknown },
  reasonClass: new(...args: any) => R
): R => {
  assert.instanceOf(error, errorClass)
  const reason = (error as { readonly reason: unknown }).reason
  assert.instanceOf(reason, reasonClass)
  return reason as R
}
