/**
 * `view` over every recording (corpus and fixtures): the exact output checked against snapshots reviewed by
 * eye, and properties of it checked against the raw JSON independently of the schemas.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import * as Pretty from "../../src/cli/Pretty.ts"
import * as Style from "../../src/cli/Style.ts"
import * as Item from "../../src/filter/Item.ts"
import * as Message from "../../src/schema/Message.ts"
import { allStreamJsonFiles, fixtureFiles, nameOf, readLines } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

const snapshots = path.resolve(import.meta.dirname, "..", "..", "fixtures", "snapshots")

// Re-recording a fixture changes its session id and durations, nothing else on screen (see fixtures/README.md);
// the corpus files are fixed captures and are shown unmasked.
const mask = (file: string, text: string): string =>
  !fixtureFiles.includes(file) ? text : text
    .replace(/^(\s*Session )[0-9a-f]{8}( ·)/gm, "$1xxxxxxxx$2")
    .replace(/\d+(?:\.\d)?m?s total \(\d+(?:\.\d)?m?s API\)/g, "#s total (#s API)")

const raw = (file: string): Array<any> =>
  readLines(file).flatMap((l) => {
    try {
      return [JSON.parse(l.text)]
    } catch {
      return []
    }
  })

const blocks = (m: any): Array<any> => Array.isArray(m?.message?.content) ? m.message.content : []

describe("view --format pretty", () => {
  it("has corpus and fixture files to check", () => {
    expect(allStreamJsonFiles.length).toBeGreaterThan(60)
  })

  for (const file of allStreamJsonFiles) {
    const name = nameOf(file)

    it.effect(`matches the reviewed snapshot: ${name}`, () =>
      Effect.gen(function*() {
        const { stderr, stdout } = yield* Run.view(file, { format: "pretty" })
        expect(stderr).toBe("")
        yield* Effect.promise(() => expect(mask(file, stdout)).toMatchFileSnapshot(path.join(snapshots, `${name}.txt`)))
      }))

    it(`shows each tool call exactly once, with its result: ${name}`, () => {
      const messages = raw(file)
      const calls = messages.filter((m) => m.type === "assistant").flatMap(blocks).filter((b) => b.type === "tool_use")
      const results = messages.filter((m) => m.type === "user").flatMap(blocks).filter((b) => b.type === "tool_result")
      const out = Pretty.renderAll(Run.items(file), Style.plain).split("\n")
      expect(out.filter((l) => /^\s*● /.test(l)).length).toBe(new Set(calls.map((b) => b.id)).size)
      expect(out.filter((l) => /^\s*⎿ {2}/.test(l)).length).toBe(results.length)
    })

    it(`closes each run with its figures: ${name}`, () => {
      // A main `init` while the session's run is still open (no result since its `init`) is the session going on
      // after a background task: its runs end with results in a row, told as one closing line.
      const groups: Array<Array<any>> = []
      const open = new Map<string, number>()
      const held = new Map<string, Array<any>>()
      for (const m of raw(file)) {
        if (m.type === "system" && m.subtype === "init" && (m.parent_tool_use_id ?? null) === null) {
          open.set(m.session_id, (open.get(m.session_id) ?? 0) + 1)
        } else if (m.type === "result") {
          const runs = open.get(m.session_id) ?? 0
          const group = [...(held.get(m.session_id) ?? []), m]
          const failed = m.subtype !== "success" || m.is_error === true
          if (runs > 1 && !failed) {
            open.set(m.session_id, runs - 1)
            held.set(m.session_id, group)
          } else {
            open.set(m.session_id, 0)
            held.set(m.session_id, [])
            groups.push(group)
          }
        }
      }
      for (const group of held.values()) if (group.length > 0) groups.push(group)
      const results = groups.map((group) => ({
        ...group.at(-1),
        num_turns: group.reduce((n, r) => n + r.num_turns, 0),
        duration_ms: group.reduce((n, r) => n + r.duration_ms, 0),
        model_usage_since_last_result: group.every((r) => r.model_usage_since_last_result !== undefined)
          ? { all: { costUSD: group.flatMap((r) => Object.values<any>(r.model_usage_since_last_result)).reduce((a, u) => a + u.costUSD, 0) } }
          : undefined
      }))
      const out = Pretty.renderAll(Run.items(file), Style.plain)
      const closing = out.split("\n").filter((l) => /^Session (complete|failed)/.test(l))
      expect(closing.length).toBe(results.length)
      // API time and cost run on over a session's results: a run's own are the growth since the previous one,
      // its cost the sum of `model_usage_since_last_result` where the CLI writes it. A run with no API time
      // (`/compact`) reports 0 and leaves the session's API time as it was.
      const previous = new Map<string, any>()
      const apiSoFar = new Map<string, number>()
      results.forEach((r, i) => {
        const before = previous.get(r.session_id)
        previous.set(r.session_id, r)
        const apiBefore = apiSoFar.get(r.session_id) ?? 0
        if (r.duration_api_ms !== 0) apiSoFar.set(r.session_id, r.duration_api_ms)
        const api = r.duration_api_ms === 0 ? 0 : r.duration_api_ms - apiBefore
        const own = r.model_usage_since_last_result
        const cost = own === undefined
          ? r.total_cost_usd - (before?.total_cost_usd ?? 0)
          : Object.values<any>(own).reduce((sum, m) => sum + m.costUSD, 0)
        expect(closing[i]).toContain(`${r.num_turns} turn${r.num_turns === 1 ? "" : "s"}`)
        expect(closing[i]).toContain(`, ${Pretty.seconds(r.duration_ms)} total (${Pretty.seconds(api)} API), ${Pretty.dollars(cost)}`)
        if (before === undefined) expect(closing[i]).not.toContain("session $")
        else expect(closing[i]!.endsWith(`, session ${Pretty.dollars(r.total_cost_usd)}`)).toBe(true)
        expect(closing[i]!.startsWith("Session complete")).toBe(r.subtype === "success" && r.is_error !== true)
      })
    })
  }

  const decode = (json: unknown): Message.Message => {
    const result = Message.decodeMessage(json)
    if (result._tag === "Failure") throw result.failure
    return result.success
  }
  const streamed = [
    { type: "stream_event", session_id: "s", parent_tool_use_id: null, event: { type: "message_start", message: { id: "msg_1", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 1 } } } },
    { type: "stream_event", session_id: "s", parent_tool_use_id: null, event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } } },
    { type: "stream_event", session_id: "s", parent_tool_use_id: null, event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } } },
    { type: "assistant", session_id: "s", parent_tool_use_id: null, message: { id: "msg_1", role: "assistant", model: "m", content: [{ type: "text", text: "Hello" }], usage: { input_tokens: 1, output_tokens: 1 } } }
  ].map(decode)

  it("streams text from deltas, never repeated", () => {
    const out = Pretty.renderAll(Item.fromIterable(streamed), Style.plain)
    expect(out).toBe("Hello\n")
  })

  it("shows the complete message's text when the deltas are filtered out", () => {
    const out = Pretty.renderAll(Item.fromIterable(streamed).filter((i) => i.kind !== "stream_event"), Style.plain)
    expect(out).toBe("Hello\n")
  })
})
