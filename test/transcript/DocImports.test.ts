/**
 * The examples in the doc comments of the transcript and filter modules import names their entry points
 * export (an example is read by people who copy it, and no compiler checks a comment).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..", "..")
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, string | { readonly default: string }>
}

// Each published entry point to its source module.
const entries = new Map(
  Object.entries(pkg.exports).flatMap(([key, target]) =>
    typeof target === "string" ? [] : [[
      `effect-claude-code${key.slice(1)}`,
      path.join(root, target.default.replace(/^\.\/dist/, "src").replace(/\.js$/, ".ts"))
    ] as const]
  )
)

const sources = ["transcript", "filter"].flatMap((dir) =>
  fs.readdirSync(path.join(root, "src", dir)).filter((name) => name.endsWith(".ts")).map((name) => path.join(root, "src", dir, name))
)

describe("doc examples", () => {
  it("import what their entry points export", async () => {
    let checked = 0
    for (const file of sources) {
      const text = fs.readFileSync(file, "utf8")
      for (const [, names, from] of text.matchAll(/^ \* import \{([^}]+)\} from "(effect-claude-code[^"]*)"/gm)) {
        const entry = entries.get(from as `effect-claude-code${string}`)
        assert.isDefined(entry, `${path.basename(file)}: ${from} is not an entry point`)
        const module = await import(entry!) as Record<string, unknown>
        for (const name of names!.split(",").map((n) => n.trim()).filter((n) => n !== "")) {
          assert.isTrue(name in module, `${path.basename(file)}: ${from} does not export ${name}`)
          checked++
        }
      }
    }
    assert.isAtLeast(checked, 5)
  })
})
