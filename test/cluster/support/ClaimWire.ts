/**
 * The scripted CLI with what goes over its stdin and stdout kept in order, to see when a prompt went to a
 * spare relative to its claim (from the wire, not from the library's own bookkeeping).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as Scripted from "../../../src/testing/Scripted.ts"
import { watchingSpawner } from "../../session/support/Real.ts"

export const make = (script: Scripted.ScriptInput) => {
  // Every whole line written to or by the CLIs, in the order it passed, with the write it came in.
  const wire: Array<{ readonly from: "in" | "out"; readonly frame: any; readonly chunk: number }> = []
  const watched = (from: "in" | "out") => (line: string, chunk: number) => {
    if (line.trim() !== "") wire.push({ from, frame: JSON.parse(line), chunk })
  }
  const layer = Scripted.layerWith(script).pipe(
    Layer.provide(watchingSpawner(watched("out"), { stdin: watched("in") })),
    Layer.provide(NodeServices.layer)
  )
  const sentIndex = (prompt: string) =>
    wire.findIndex((w) => w.from === "in" && w.frame.type === "user" && JSON.stringify(w.frame.message).includes(prompt))
  const claimIndex = () => {
    const claim = wire.findIndex((w) => w.from === "in" && w.frame.request?.subtype === "claim_session")
    assert.isAtLeast(claim, 0, "no claim_session was sent")
    return claim
  }
  // Whether the prompt went in before the CLI answered the claim (after the claim itself, always).
  const promptBeforeClaimAnswer = (prompt: string): boolean => {
    const claim = claimIndex()
    const id = wire[claim].frame.request_id
    const answer = wire.findIndex((w) =>
      w.from === "out" && w.frame.type === "control_response" && w.frame.response?.request_id === id
    )
    const sent = sentIndex(prompt)
    assert.isAtLeast(answer, 0, "the claim was not answered")
    assert.isAtLeast(sent, 0, "the prompt was not sent")
    assert.isAbove(sent, claim, "the prompt went before the claim")
    return sent < answer
  }
  // The lines written to the CLI in the write that carried the claim, up to the prompt: the frames' types
  // (control requests by subtype), or where the prompt went if not there.
  const writtenWithClaim = (prompt: string): ReadonlyArray<string> => {
    const claim = wire[claimIndex()]
    const sent = sentIndex(prompt)
    assert.isAtLeast(sent, 0, "the prompt was not sent")
    return wire.slice(0, sent + 1)
      .filter((w) => w.from === "in" && w.chunk === claim.chunk)
      .map((w) => w.frame.request?.subtype ?? w.frame.type)
  }
  return { wire, layer, sentIndex, promptBeforeClaimAnswer, writtenWithClaim }
}
