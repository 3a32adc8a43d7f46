/**
 * Where `view` reads from: a pipe (`view -`) and a growing file (`view --follow`), run as a user runs them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Input from "../../src/cli/Input.ts"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ExitCode } from "../../src/cli/CliFailure.ts"
import { corpusFiles } from "../support/Corpus.ts"
import * as Run from "./support/Run.ts"

const snapshot = (file: string) =>
  fs.readFileSync(path.join(Run.root, "fixtures", "snapshots", `${path.basename(file, ".jsonl")}.txt`), "utf8")

describe("view - (and view with no FILE)", () => {
  it("reads a pipe: the same display as for the file", () => {
    const file = corpusFiles.find((f) => f.includes("cli-sync__captured__scenario-a-basic."))!
    const run = Run.cli(["view", "-"], { input: fs.readFileSync(file, "utf8") })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(run.stdout).toBe(snapshot(file))
  })

  it("reads a pipe when no FILE is given", () => {
    const file = corpusFiles.find((f) => f.includes("cli-sync__captured__scenario-f-thinking@"))!
    const run = Run.cli(["view"], { input: fs.readFileSync(file, "utf8") })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(run.stdout).toBe(snapshot(file))
  })

  it("reads a pipe in jsonl with a filter", () => {
    const file = path.join(Run.root, "fixtures", "recorded", "complex_tool_chain.jsonl")
    const run = Run.cli(["view", "--format", "jsonl", "--filter", "tool", "-"], { input: fs.readFileSync(file, "utf8") })
    expect(run.status).toBe(0)
    const names = run.stdout.trim().split("\n").map((l) => JSON.parse(l).value.name)
    expect(names).toEqual(["Bash", "Read", "Edit", "Write", "Bash"])
  })

  it("an empty pipe says so, exit 3", () => {
    const run = Run.cli(["view", "-"], { input: "" })
    expect(run.status).toBe(ExitCode.BadInput)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain("standard input is empty")
    expect(Run.cli(["stats", "-"], { input: "" }).status).toBe(ExitCode.BadInput)
  })
})

describe("view --follow", () => {
  it("follows a growing file until interrupted", async () => {
    const lines = fs.readFileSync(path.join(Run.root, "fixtures", "recorded", "demo.jsonl"), "utf8").trim().split("\n")
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-follow-"))
    const file = path.join(dir, "session.jsonl")
    fs.writeFileSync(file, lines.slice(0, 2).join("\n") + "\n")
    const { child, exited, printed, until, stdout } = Run.following(["view", "--follow", "--format", "jsonl", file])
    try {
      await until("the first two lines", () => printed() === 2)
      // A line written in two parts is shown once, whole, when its newline arrives.
      const [head, tail] = [lines[2]!.slice(0, 40), lines[2]!.slice(40)]
      fs.appendFileSync(file, head)
      fs.appendFileSync(file, tail + "\n" + lines.slice(3, 6).join("\n") + "\n")
      await until("the appended lines", () => printed() === 6)
      expect(child.exitCode).toBe(null)
      fs.appendFileSync(file, lines.slice(6).join("\n") + "\n")
      await until("the rest", () => printed() === lines.length)
      expect(stdout()).toBe(lines.map((l) => l + "\n").join(""))
    } finally {
      child.kill("SIGINT")
    }
    expect(await exited).toBe(ExitCode.Interrupted)
    fs.rmSync(dir, { recursive: true })
  }, 60_000)
})

// Bytes that look like a binary file: every value, "\n{" among them, never a line that is JSON.
const binaryChunk = (size: number, seed: number): Uint8Array =>
  new Uint8Array(size).map((_, i) => (i % 97 === 0 ? 0x0a : i % 97 === 1 ? 0x7b : ((i + seed) * 7919) % 256))

describe("giving up on input that is not stream-json", () => {
  const chunk = 64 * 1024
  const counted = (chunks: number, first?: Uint8Array) => {
    let read = 0
    const bytes = Stream.fromIterable(Array.from({ length: chunks }, (_, i) => i === 0 && first ? first : binaryChunk(chunk, i))).pipe(
      Stream.tap((c) => Effect.sync(() => read += c.length))
    )
    return { bytes, read: () => read }
  }

  it.effect("gives up early on a binary stream", () =>
    Effect.gen(function*() {
      const input = counted(256) // 16 MB
      const failure = yield* Stream.runDrain(input.bytes.pipe(Input.giveUpUnlessJson("big.bin"))).pipe(Effect.flip)
      expect(failure.message).toBe(`big.bin is neither stream-json nor a session transcript: no JSON line in its first ${Input.sniffBytes / 1024} KB`)
      expect(input.read()).toBeLessThanOrEqual(Input.sniffBytes + chunk)
    }))

  it.effect("reads to the end once a JSON line came first", () =>
    Effect.gen(function*() {
      const first = new TextEncoder().encode("{\"type\":\"system\",\"subtype\":\"init\"}\n" + "x".repeat(chunk - 40))
      const input = counted(32, first)
      yield* Stream.runDrain(input.bytes.pipe(Input.giveUpUnlessJson("ok.jsonl")))
      expect(input.read()).toBe(first.length + 31 * chunk)
    }))

  it("view of a large binary file: gives up, and prints none of its bytes", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-binary-"))
    const file = path.join(dir, "big.bin")
    fs.writeFileSync(file, Buffer.concat(Array.from({ length: 64 }, (_, i) => binaryChunk(chunk, i))))
    const run = Run.cli(["view", file])
    fs.rmSync(dir, { recursive: true })
    expect(run.status).toBe(ExitCode.BadInput)
    expect(run.stderr).toContain(`${file} is neither stream-json nor a session transcript: no JSON line in its first ${Input.sniffBytes / 1024} KB`)
    // Only ASCII and the display's own marks: no byte of the file as it was.
    expect((run.stdout + run.stderr).replace(/[✗…]/g, "")).toMatch(/^[\x0a\x20-\x7e]*$/)
  })
})
