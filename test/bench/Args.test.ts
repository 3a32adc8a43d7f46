import { assert, describe, it } from "@effect/vitest"
import * as args from "../../bench/args.ts"

const known = ["a-bytes", "b-sdk", "d-strict"]
const parse = (...argv: Array<string>) => args.parse(argv, known)
const config = (...argv: Array<string>): args.Config => {
  const parsed = parse(...argv)
  if (parsed === "help") throw new Error("expected a config")
  return parsed
}
const rejects = (argv: Array<string>, message: RegExp) => assert.throws(() => parse(...argv), args.UsageError, message)

describe("bench arguments", () => {
  it("defaults to a full run without JSON", () => {
    const c = config()
    assert.deepStrictEqual([c.quick, c.sizeMB, c.runs, c.warmup, c.bigLineMiB, c.hugeMB, c.latencyCount], [false, 32, 11, 2, 64, 1024, 2000])
    assert.deepStrictEqual(c.json, { to: "none" })
    assert.deepStrictEqual(c.only, [])
  })

  it("--quick changes the defaults, and explicit values win", () => {
    const c = config("--quick", "--runs", "5")
    assert.deepStrictEqual([c.quick, c.sizeMB, c.runs, c.bigLineMiB, c.hugeMB, c.latencyCount], [true, 4, 5, 8, 64, 200])
  })

  it("real-shaped inputs: 200 MB, 8 with --quick, 0 skips them", () => {
    assert.deepStrictEqual([config().realMB, config("--quick").realMB, config("--real", "0").realMB], [200, 8, 0])
    rejects(["--real", "1.5"], /--real 1.5: expected an integer >= 0/)
    assert.deepStrictEqual([config().curveMB, config("--quick").curveMB, config("--curve", "0").curveMB], [64, 8, 0])
  })

  it("--json FILE writes the file, in any position", () => {
    assert.deepStrictEqual(config("--json", "bench/results/latest.json").json, { to: "file", path: "bench/results/latest.json" })
    assert.deepStrictEqual(config("--json", "out.json", "--quick").json, { to: "file", path: "out.json" })
    assert.deepStrictEqual(config("--json=out.json").json, { to: "file", path: "out.json" })
  })

  it("a bare --json means stdout, never the next flag", () => {
    assert.deepStrictEqual(config("--json").json, { to: "stdout" })
    assert.deepStrictEqual(config("--quick", "--json").json, { to: "stdout" })
    const c = config("--json", "--quick")
    assert.deepStrictEqual(c.json, { to: "stdout" })
    assert.isTrue(c.quick)
    assert.deepStrictEqual(config("--json", "-").json, { to: "stdout" })
  })

  it("rejects unknown flags, positionals, bad numbers and unknown variants", () => {
    rejects(["--fast"], /Unknown option '--fast'/)
    rejects(["results.json"], /positional/i)
    rejects(["--runs", "0"], /--runs 0: expected an integer >= 1/)
    rejects(["--size", "abc"], /--size abc/)
    rejects(["--runs", "2.5"], /--runs 2.5/)
    rejects(["--runs"], /argument missing/)
    rejects(["--only", "d-strict,z-none"], /unknown variant z-none/)
    rejects(["--json="], /empty file name/)
    rejects(["--src", "--dist", "dist"], /exclude each other/)
  })

  it("accepts a fractional latency interval and the variant list", () => {
    const c = config("--latency-interval", "0.5", "--only", "a-bytes,d-strict", "--huge", "0")
    assert.deepStrictEqual([c.latencyInterval, c.hugeMB], [0.5, 0])
    assert.deepStrictEqual(c.only, ["a-bytes", "d-strict"])
  })

  it("--help asks for the usage, which names every flag", () => {
    assert.strictEqual(parse("--help"), "help")
    for (const flag of ["--quick", "--json", "--size", "--runs", "--warmup", "--big-line", "--huge", "--latency-count", "--latency-interval", "--seed", "--only", "--src", "--dist", "--keep"]) {
      assert.include(args.usage, flag)
    }
  })
})
