/**
 * What `npm pack` ships: built from a copy of the project, packed, unpacked into a fresh application's
 * node_modules, then imported through every entry of the `exports` map and run through the bin.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { manifest, pack, root, run } from "./support/Pack.ts"

describe("the packed package", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-pack-"))
  const app = path.join(work, "app")

  it("builds, packs and imports every export from a fresh application", () => {
    try {
      // A version of its own, so the bin's --version can only have come from the packed package.json.
      const packedVersion = `${manifest.version}-packtest`
      const { tarball, files: shipped } = pack(work, { ...manifest, version: packedVersion })
      for (const [entry, target] of Object.entries(manifest.exports)) {
        if (typeof target === "string") continue
        assert.isTrue(shipped.has(target.default.slice(2)), `${entry} -> ${target.default}`)
        assert.isTrue(shipped.has(target.types.slice(2)), `${entry} -> ${target.types}`)
      }
      for (const bin of Object.values(manifest.bin)) assert.isTrue(shipped.has(bin.slice(2)), bin)
      assert.isFalse([...shipped].some((file) => file.startsWith("test/") || file.startsWith("bench/")))

      const installed = path.join(app, "node_modules", "effect-claude-code")
      fs.mkdirSync(installed, { recursive: true })
      run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"], app)
      // The package's own dependencies, as npm would install them beside it.
      for (const dependency of ["effect", "@effect"]) {
        fs.symlinkSync(path.join(root, "node_modules", dependency), path.join(app, "node_modules", dependency))
      }
      fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ type: "module" }))
      const entries = Object.keys(manifest.exports).filter((entry) => entry !== "./package.json")
      const script = entries.map((entry, i) =>
        `import * as m${i} from ${JSON.stringify(path.posix.join("effect-claude-code", entry))}\n` +
        `console.log(${JSON.stringify(entry)}, Object.keys(m${i}).sort().join(","))`
      ).join("\n")
      fs.writeFileSync(path.join(app, "main.mjs"), script)
      const printed = run(process.execPath, ["main.mjs"], app).trim().split("\n")
      assert.strictEqual(printed.length, entries.length)
      const names = new Map(printed.map((line) => line.split(" ") as [string, string]))
      assert.include(names.get(".")!.split(","), "ClaudeCli")
      assert.include(names.get("./schema")!.split(","), "Message")
      assert.include(names.get("./filter")!.split(","), "Filter")
      assert.include(names.get("./testing")!.split(","), "ScriptedServer")
      assert.include(names.get("./ai")!.split(","), "ClaudeCodeLanguageModel")

      const help = run(process.execPath, [path.join(installed, manifest.bin["effect-claude-code"])].concat("--help"), app)
      for (const command of ["run", "view", "stats", "demo"]) assert.include(help, command)
      const version = run(process.execPath, [path.join(installed, manifest.bin["effect-claude-code"]), "--version"], app)
      assert.strictEqual(version.trim(), `effect-claude-code v${packedVersion}`)

      // Without a `claude` on PATH, the installed demo replays the recording it ships with.
      const demo = execFileSync(process.execPath, [path.join(installed, manifest.bin["effect-claude-code"]), "demo"], {
        cwd: app,
        encoding: "utf8",
        env: { PATH: path.dirname(process.execPath), HOME: app, NO_COLOR: "1" }
      })
      assert.include(demo, "Session complete")
      assert.include(demo, "Denied")
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 120_000)
})

// The runtime names of each entry point, counted through namespace re-exports: `ClaudeCli.query` is one
// name, `ClaudeCli` itself none (a namespace is a path, not a value); types are erased and not counted.
// Every entry of the `exports` map is counted, read from package.json, so a new entry point cannot escape the bound.
const entrySources = (exports: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(exports).flatMap(([entry, target]) =>
      typeof target === "string" ? [] : [[entry, (target as { readonly default: string }).default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts")]]
    )
  )

const isNamespace = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "Module"

/** Each runtime value of a module with the dotted names it is reachable by. */
const runtimeNames = (module: Record<string, unknown>): Map<unknown, Array<string>> => {
  const names = new Map<unknown, Array<string>>()
  const walk = (namespace: Record<string, unknown>, prefix: string, seen: ReadonlySet<unknown>): void => {
    for (const [key, value] of Object.entries(namespace)) {
      if (isNamespace(value)) {
        if (!seen.has(value)) walk(value, `${prefix}${key}.`, new Set([...seen, value]))
        continue
      }
      // Primitives (a default, a limit) may be equal by chance: each is its own entry.
      const id = typeof value === "object" || typeof value === "function" ? value : Symbol(key)
      names.set(id, [...(names.get(id) ?? []), prefix + key])
    }
  }
  walk(module, "", new Set([module]))
  return names
}

describe("the public surface", () => {
  it("is at most 520 runtime names over every entry point, each value under one name", async () => {
    const sources = entrySources(manifest.exports as Record<string, unknown>)
    assert.isAtLeast(Object.keys(sources).length, 11)
    let total = 0
    for (const [entry, file] of Object.entries(sources)) {
      const names = runtimeNames(await import(path.join(root, "src", file)) as Record<string, unknown>)
      const count = [...names.values()].flat().length
      console.log(`${entry}: ${count} runtime names`)
      total += count
      assert.deepStrictEqual([...names.values()].filter((spellings) => spellings.length > 1), [], `${entry}: one value, two names`)
    }
    console.log(`every entry point: ${total} runtime names (624 when the bound was set at 520)`)
    assert.isAtMost(total, 520)
    assert.isAbove(total, 100)
  })
})
