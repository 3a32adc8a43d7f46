/**
 * The README's tour is generated from `examples/` (`npm run readme:tour`); this keeps it true. The examples
 * themselves are type-checked with the rest and run by their own tests (`examples/*.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Readme from "../scripts/readme.ts"
import * as Tour from "../scripts/readme-tour.ts"

describe("README tour", () => {
  it("is what scripts/readme-tour.ts makes of examples/", () => {
    const readme = fs.readFileSync(Readme.readmePath, "utf8")
    assert.strictEqual(Readme.sectionOf(readme, "tour"), Tour.section(), "README.md is stale: run npm run readme:tour")
  })

  it("shows library imports as imports of the entry points", () => {
    const source = [
      `import { ClaudeCli } from "../src/index.ts"`,
      `import * as Layers from "../src/layers/index.ts"`,
      `import { Script } from "../src/testing/index.ts"`,
      `import { bashCommands } from "./tool-activity.ts"`
    ].join("\n")
    assert.strictEqual(
      Tour.asPublished("examples/x.ts", source),
      [
        `import { ClaudeCli } from "effect-claude-code"`,
        `import * as Layers from "effect-claude-code/layers"`,
        `import { Script } from "effect-claude-code/testing"`,
        `import { bashCommands } from "./tool-activity.ts"`
      ].join("\n")
    )
    assert.throws(() => Tour.asPublished("examples/x.ts", `import { x } from "../src/stream/internal/stepper.ts"`), /no entry point/)
  })

  it("has a step for every example program (their tests and kits need not be shown)", () => {
    const shown = new Set<string>(Tour.steps.flatMap((step) => step.also === undefined ? [step.file] : [step.file, step.also]))
    const names = fs.readdirSync(`${Readme.root}/examples`)
    const programs = names.filter((name) => !name.endsWith(".test.ts") && !name.endsWith("-kit.ts"))
    assert.isAbove(programs.length, 1)
    assert.deepStrictEqual(programs.map((name) => `examples/${name}`).filter((file) => !shown.has(file)), [])
    // A kit is the plumbing of a shown program (starting processes, reading the process table), not an example.
    for (const kit of names.filter((name) => name.endsWith("-kit.ts"))) {
      const users = [...shown].filter((file) => fs.readFileSync(`${Readme.root}/${file}`, "utf8").includes(`from "./${kit}"`))
      assert.isAbove(users.length, 0, `examples/${kit} is imported by no example the tour shows`)
    }
  })
})
