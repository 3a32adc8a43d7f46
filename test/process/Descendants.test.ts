/**
 * Finding a process's descendants: down the kernel's children files (the guard's look while stdout is busy)
 * finds what the walk up the whole process table finds.
 */
import { assert, describe, it } from "@effect/vitest"
import * as childProcess from "node:child_process"
import * as Descendants from "../../src/process/internal/descendants.ts"

const pidsOf = (entries: ReadonlyArray<Descendants.Entry>) => entries.map((e) => e.pid).sort((a, b) => a - b)

describe("Descendants", () => {
  it("reads down the children files what the table shows up its parents", async () => {
    // A shell with a child and a subshell holding a grandchild: three descendants, two levels deep.
    const root = childProcess.spawn("/bin/sh", ["-c", "sleep 30 & (sleep 30 & wait) & wait"], { detached: true, stdio: "ignore" })
    try {
      const pid = root.pid!
      for (let i = 0; i < 100 && Descendants.of(pid, Descendants.table()).length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const up = pidsOf(Descendants.of(pid, Descendants.table()))
      assert.strictEqual(up.length, 3)
      assert.deepStrictEqual(pidsOf(Descendants.under(pid)), up)
      assert.deepStrictEqual(pidsOf(Descendants.track(pid).look()), up)
    } finally {
      process.kill(-root.pid!, "SIGKILL")
    }
  })

  it("finds none under a process that is gone", () => {
    const gone = childProcess.spawnSync("/bin/true").pid
    assert.deepStrictEqual(Descendants.under(gone), [])
  })
})
