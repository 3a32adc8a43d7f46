/**
 * What `npm pack` ships: built from a copy of the project, packed, unpacked into a fresh application's
 * node_modules, then imported through every entry of the `exports` map and run through the bin.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, string | { readonly types: string; readonly default: string }>
  readonly bin: Record<string, string>
  readonly files: ReadonlyArray<string>
  readonly version: string
}
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

describe("the packed package", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-pack-"))
  const pkg = path.join(work, "pkg")
  const app = path.join(work, "app")

  it("builds, packs and imports every export from a fresh application", () => {
    try {
      fs.mkdirSync(pkg)
      for (const entry of ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "src", "fixtures"]) {
        fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true })
      }
      fs.symlinkSync(path.join(root, "node_modules"), path.join(pkg, "node_modules"))
      // A version of its own, so the bin's --version can only have come from the packed package.json.
      const packedVersion = `${manifest.version}-packtest`
      fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ ...manifest, version: packedVersion }, null, 2))
      run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], pkg)
      const [packed] = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts"], pkg)) as Array<
        { readonly filename: string; readonly files: ReadonlyArray<{ readonly path: string }> }
      >
      const shipped = new Set(packed.files.map((file) => file.path))
      for (const [entry, target] of Object.entries(manifest.exports)) {
        if (typeof target === "string") continue
        assert.isTrue(shipped.has(target.default.slice(2)), `${entry} -> ${target.default}`)
        assert.isTrue(shipped.has(target.types.slice(2)), `${entry} -> ${target.types}`)
      }
      for (const bin of Object.values(manifest.bin)) assert.isTrue(shipped.has(bin.slice(2)), bin)
      assert.isFalse([...shipped].some((file) => file.startsWith("test/") || file.startsWith("bench/")))

      const installed = path.join(app, "node_modules", "effect-claude-code")
      fs.mkdirSync(installed, { recursive: true })
      run("tar", ["-xzf", path.join(pkg, packed.filename), "-C", installed, "--strip-components=1"], app)
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
