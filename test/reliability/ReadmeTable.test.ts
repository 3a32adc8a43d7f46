/**
 * The README's reliability table is generated (`npm run reliability:table`); this keeps it true: every test
 * of the reliability suites has its row, with its title as written, and no row is left over.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Table from "./support/table.ts"

describe("README reliability table", () => {
  // Regenerate with npm run reliability:table.
  it("lists exactly the reliability tests", () => {
    const readme = fs.readFileSync(Table.readmePath, "utf8")
    const expected = Table.rows().map((r) => [r.category, r.case, r.behaviour] as const)
    assert.isAbove(expected.length, 30)
    assert.deepStrictEqual(Table.readmeRows(readme), expected, "README.md is stale: run npm run reliability:table")
  })

  it("reads back what it writes, pipes and all", () => {
    const rows = [{ category: "Load", case: "a | b", behaviour: "c | d" }, { category: "Faults", case: "x", behaviour: "y: z" }]
    const readme = Table.replaceSection(`# T\n${Table.start}\nold\n${Table.end}\n`, Table.section(rows, () => "passed", "now"))
    assert.deepStrictEqual(Table.readmeRows(readme), [["Load", "a | b", "c | d"], ["Faults", "x", "y: z"]])
    assert.include(readme, "2 passed, 0 failed, now.")
    assert.notInclude(readme, "old")
  })
})
