/**
 * `transcript_mirror` frames of the real CLI (`--session-mirror`, scripted model): each line decodes to
 * `TranscriptMirror` and encodes back as written, its entries are the lines the CLI wrote to the transcript
 * file it names, each a known transcript entry, and `SessionMirror.frameOf` takes every one.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as Message from "../../src/schema/Message.ts"
import * as SessionEvent from "../../src/schema/SessionEvent.ts"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as SessionMirror from "../../src/store/SessionMirror.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import * as Scenario from "../../src/testing/Scenario.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"

// What the CLI writes to the transcript file and does not mirror: its records of the API requests.
const local = new Set(["api-request-shape", "api-request-blob", "api-request"])

const scenarios = Scenarios.all.filter((s) => s.name === "read_file" || s.name === "subagent")

layer(NodeServices.layer, { excludeTestServices: true })("transcript_mirror frames of the real CLI", (it) => {
  for (const scenario of scenarios) {
    it.effect(scenario.name, () =>
      Effect.gen(function*() {
        const run = yield* Scenario.run(scenario, { args: [SessionMirror.flag] })
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const lines = run.stdout.split("\n").filter((line) => line.trim() !== "")
        const wire = lines.map((line) => JSON.parse(line) as { readonly type: string })
        const decoded = Decode.decodeAll(run.stdout)
        assert.deepStrictEqual(decoded.filter(isDecodeError), [])
        const messages = decoded.flatMap((d) => isDecodeError(d) ? [] : [d.message])
        const frames = messages.filter((m): m is SessionEvent.TranscriptMirror => m._tag === "TranscriptMirror")
        assert.strictEqual(frames.length, wire.filter((json) => json.type === "transcript_mirror").length)
        assert.isAbove(frames.length, 0)
        assert.isFalse(messages.some((m) => m._tag === "UnknownMessage" && m.type === "transcript_mirror"))
        for (const [i, message] of messages.entries()) {
          if (message._tag === "TranscriptMirror") assert.deepStrictEqual(Message.encodeMessage(message), wire[i])
        }
        // Per file, the frames' entries are its lines, in order (but the request records, kept on the machine); each
        // a known entry.
        const byFile = new Map<string, Array<unknown>>()
        for (const frame of frames) {
          assert.strictEqual(SessionMirror.frameOf(frame), frame)
          byFile.set(frame.filePath, [...(byFile.get(frame.filePath) ?? []), ...frame.entries])
          for (const entry of Transcript.mirroredEntries(frame)) {
            assert.isFalse(entry._tag === "TranscriptEntryError" || entry._tag === "UnknownEntry", JSON.stringify(entry))
          }
        }
        const main = [...byFile.keys()].find((file) => file.endsWith(`${run.messages[0]!.session_id}.jsonl`))
        assert.isDefined(main)
        for (const [file, entries] of byFile) {
          const written = fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
          const lines = entries.filter((entry) => (entry as Transcript.Entry).type !== "agent_metadata")
          assert.deepStrictEqual(lines, written.filter((line) => !local.has(line.type)), file)
          // A subagent's `.meta.json` goes along as `agent_metadata` entries, the last one as the file holds it.
          const metadata = entries.filter((entry) => !lines.includes(entry))
          if (metadata.length > 0) {
            const meta = JSON.parse(fs.readFileSync(file.replace(/\.jsonl$/, ".meta.json"), "utf8"))
            assert.deepStrictEqual(metadata.at(-1), { type: "agent_metadata", ...meta })
          }
        }
        const known = frames.flatMap(Transcript.mirroredEntries) as ReadonlyArray<Transcript.Entry>
        assert.isTrue(known.some(Transcript.isMessage))
      }), 120_000)
  }
})
