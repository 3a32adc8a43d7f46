/**
 * `_tag` narrows a decoded `Message` to its class, in a `switch` and with
 * `Match.tag`: checked by the compiler (`tsc` covers the tests), and run over
 * the recorded fixtures.
 */
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import * as Match from "effect/Match"
import * as Result from "effect/Result"
import type * as ContentBlock from "../../src/schema/ContentBlock.ts"
import {
  type AssistantMessage,
  decodeMessage,
  isResultMessage,
  type Message,
  type UnknownMessage,
  type UserMessageReplay
} from "../../src/schema/Message.ts"
import type { ResultError, ResultSuccess } from "../../src/schema/Result.ts"
import type { ActiveGoal } from "../../src/schema/SessionEvent.ts"
import type { SystemInit } from "../../src/schema/System.ts"
import { fixtureFiles, readLines } from "../support/Corpus.ts"

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/** The tags that narrow `Message` to nothing or to more than one class. */
type Ambiguous = {
  [Tag in Message["_tag"]]: [Extract<Message, { readonly _tag: Tag }>] extends [never] ? Tag
    : true extends IsUnion<Extract<Message, { readonly _tag: Tag }>> ? Tag
    : never
}[Message["_tag"]]

const inSwitch = (message: Message): string => {
  switch (message._tag) {
    case "AssistantMessage":
      expectTypeOf(message).toEqualTypeOf<AssistantMessage>()
      expectTypeOf(message.toolUses).toEqualTypeOf<ReadonlyArray<ContentBlock.ToolUseBlock>>()
      return `assistant: ${message.text}`
    case "UserMessageReplay":
      expectTypeOf(message).toEqualTypeOf<UserMessageReplay>()
      expectTypeOf(message.isReplay).toEqualTypeOf<true>()
      return "replay"
    case "ResultSuccess":
    case "ResultError":
      expectTypeOf(message).toEqualTypeOf<ResultSuccess | ResultError>()
      return `result: ${message.subtype}`
    case "SystemInit":
      expectTypeOf(message).toEqualTypeOf<SystemInit>()
      return `init: ${message.model}`
    case "ActiveGoal":
      expectTypeOf(message).toEqualTypeOf<ActiveGoal>()
      return `goal: ${message.value?.condition}`
    case "UnknownMessage":
      expectTypeOf(message).toEqualTypeOf<UnknownMessage>()
      return `unknown: ${message.type}`
    default:
      expectTypeOf(message).not.toExtend<AssistantMessage | SystemInit | UnknownMessage>()
      return message.type
  }
}

const withMatch = Match.type<Message>().pipe(
  Match.tag("AssistantMessage", (message) => {
    expectTypeOf(message).toEqualTypeOf<AssistantMessage>()
    return `assistant: ${message.text}`
  }),
  Match.tag("UserMessageReplay", (message) => {
    expectTypeOf(message).toEqualTypeOf<UserMessageReplay>()
    return "replay"
  }),
  Match.tag("ResultSuccess", "ResultError", (message) => {
    expectTypeOf(message).toEqualTypeOf<ResultSuccess | ResultError>()
    return `result: ${message.subtype}`
  }),
  Match.tag("SystemInit", (message) => `init: ${message.model}`),
  Match.tag("ActiveGoal", (message) => `goal: ${message.value?.condition}`),
  Match.tag("UnknownMessage", (message) => `unknown: ${message.type}`),
  Match.orElse((message) => {
    expectTypeOf(message).not.toExtend<AssistantMessage | SystemInit | UnknownMessage>()
    return message.type
  })
)

describe("_tag narrows Message", () => {
  it("every tag names exactly one class", () => {
    expectTypeOf<Ambiguous>().toEqualTypeOf<never>()
  })

  it("a switch and Match.tag narrow alike, over every recorded fixture line", () => {
    let lines = 0
    for (const file of fixtureFiles) {
      for (const { text } of readLines(file)) {
        const message = Result.getOrThrow(decodeMessage(JSON.parse(text)))
        assert.strictEqual(withMatch(message), inSwitch(message))
        lines++
      }
    }
    assert.isAbove(lines, 300)
  })

  it("isResultMessage holds for result lines alone, and narrows to them", () => {
    const results: Array<string> = []
    let others = 0
    for (const file of fixtureFiles) {
      for (const { text } of readLines(file)) {
        const message = Result.getOrThrow(decodeMessage(JSON.parse(text)))
        if (isResultMessage(message)) {
          expectTypeOf(message).toEqualTypeOf<ResultSuccess | ResultError>()
          results.push(message.subtype)
        } else {
          assert.notStrictEqual(message.type, "result")
          others++
        }
      }
    }
    assert.includeMembers(results, ["success"])
    assert.isAbove(results.length, 0)
    assert.isAbove(others, results.length)
  })
})
