import { assert, describe, it } from "@effect/vitest"
import * as Flags from "../../bench/flags.ts"

// The flags read process.argv: each case sets it and puts it back.
const withArgv = <A>(args: ReadonlyArray<string>, f: () => A): A => {
  const saved = process.argv
  process.argv = ["node", "bench.ts", ...args]
  try {
    return f()
  } finally {
    process.argv = saved
  }
}

describe("bench flags", () => {
  it("medians of odd and even counts", () => {
    assert.strictEqual(Flags.median([3, 1, 2]), 2)
    assert.strictEqual(Flags.median([4, 1, 3, 2]), 2.5)
    assert.isNaN(Flags.median([]))
  })

  it("reads a flag's value, or none", () => {
    assert.strictEqual(withArgv(["--only", "a,b"], () => Flags.option("only")), "a,b")
    assert.isUndefined(withArgv(["--rounds", "3"], () => Flags.option("only")))
  })

  it("takes a whole count or the default", () => {
    assert.strictEqual(withArgv(["--rounds", "31"], () => Flags.count("rounds", 15)), 31)
    assert.strictEqual(withArgv([], () => Flags.count("rounds", 15)), 15)
  })

  it("refuses a count that is not a whole number above 0", () => {
    for (const bad of ["0", "1.5", "x"]) {
      assert.throws(() => withArgv(["--rounds", bad], () => Flags.count("rounds", 15)), `--rounds takes a whole number of at least 1, got ${bad}`)
    }
    assert.throws(() => withArgv(["--rounds"], () => Flags.count("rounds", 15)), "--rounds takes a value")
    assert.throws(() => withArgv(["--rounds", "--trace"], () => Flags.count("rounds", 15)), "--rounds takes a value")
  })
})
