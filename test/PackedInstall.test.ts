/**
 * The README, followed by a new user: a fresh application that already has `effect` installs the packed
 * tarball with the README's Install commands, then type-checks and runs the README's code as written. The
 * commands install the versions the repository pins, from the npm cache where it has them.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Tour from "../scripts/readme-tour.ts"
import { manifest, pack, root, run } from "./support/Pack.ts"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-install-"))
const app = path.join(work, "app")
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
// The app's own tools, at the repository's versions.
const tools = ["typescript", "vitest", "@effect/vitest", "@types/node"]
const pinned = (name: string) => `${name}@${manifest.devDependencies[name]}`

/** The fenced blocks of `lang` in `markdown`, each with the file named by the `(\`file\`)` line above it. */
const blocks = (markdown: string, lang: string) =>
  [...markdown.matchAll(new RegExp("(?:\\(`([^`]+)`\\)\\n\\n)?```" + lang + "\\n([\\s\\S]*?)\\n```", "g"))]
    .map(([, file, code]) => ({ file, code }))

const installSection = readme.slice(readme.indexOf("## Install\n"), readme.indexOf("\n## ", readme.indexOf("## Install\n") + 1))

/** A README command as run here: the package is the tarball, other packages the repository's pinned version. */
const asRun = (line: string, tarball: string): Array<string> => {
  const [npm, command, ...args] = line.trim().split(/\s+/)
  if (npm !== "npm" || !["install", "approve-scripts"].includes(command)) {
    throw new Error(`the Install section runs only npm install and npm approve-scripts, not: ${line}`)
  }
  if (command !== "install") return [command, ...args]
  const packages = args.map((arg) => arg === manifest.name ? tarball : manifest.devDependencies[arg] ? pinned(arg) : arg)
  return [command, "--prefer-offline", "--no-audit", "--no-fund", ...packages]
}

// The app's environment: no repository on PATH, so the CLI it runs is the one it installed, and none of the
// settings `npm test` passes its scripts (its prefix is the repository's).
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_"))),
  PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":")
}
const npm = (args: ReadonlyArray<string>) => run("npm", args, app, env)

describe("a fresh application, from the README", () => {
  let installLog = ""
  beforeAll(() => {
    const { tarball } = pack(work)
    fs.mkdirSync(app)
    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({
        name: "app",
        private: true,
        type: "module",
        dependencies: { effect: manifest.devDependencies.effect, "@effect/platform-node": manifest.devDependencies["@effect/platform-node"] },
        devDependencies: Object.fromEntries(tools.map((name) => [name, manifest.devDependencies[name]]))
      })
    )
    for (const { code } of blocks(installSection, "sh")) {
      for (const line of code.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"))) {
        installLog += npm(asRun(line, tarball))
      }
    }
  }, 600_000)
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

  it("installs one copy of effect", () => {
    const copies: Array<{ readonly path: string; readonly version: string }> = []
    interface Node {
      readonly path: string
      readonly version: string
      readonly dependencies?: Record<string, Node>
    }
    const walk = (node: Pick<Node, "dependencies">) => {
      for (const [name, dependency] of Object.entries(node.dependencies ?? {})) {
        if (name === "effect" && !copies.some((copy) => copy.path === dependency.path)) copies.push(dependency)
        walk(dependency)
      }
    }
    walk(JSON.parse(npm(["ls", "effect", "--all", "--long", "--json"])))
    assert.deepStrictEqual(copies.map((copy) => [copy.path, copy.version]), [
      [path.join(fs.realpathSync(app), "node_modules", "effect"), manifest.devDependencies.effect]
    ])
    assert.notInclude(installLog, "ERESOLVE")
    // Peers, not dependencies: an app on any later 4.x patch or minor keeps its one copy.
    const installed = JSON.parse(fs.readFileSync(path.join(app, "node_modules", manifest.name, "package.json"), "utf8")) as {
      readonly dependencies?: Record<string, string>
      readonly peerDependencies: Record<string, string>
    }
    for (const name of ["effect", "@effect/platform-node"]) {
      assert.notProperty(installed.dependencies ?? {}, name)
      assert.match(installed.peerDependencies[name], /^\^4\.1\.\d+$/)
    }
  })

  it("installs the CLI with its install script approved", () => {
    const allowed = Object.keys((JSON.parse(fs.readFileSync(path.join(app, "package.json"), "utf8")) as {
      readonly allowScripts?: Record<string, boolean>
    }).allowScripts ?? {})
    assert.isTrue(allowed.some((name) => name.startsWith("@anthropic-ai/claude-code")), allowed.join(", "))
    assert.match(run(path.join(app, "node_modules", ".bin", "claude"), ["--version"], app, env), /Claude Code/)
  })

  it("runs the README's code from the installed package", () => {
    const shown = blocks(readme, "ts")
    assert.isAbove(shown.length, 1)
    for (const { file, code } of shown) {
      assert.isDefined(file, `a ts block of the README names no file:\n${code.slice(0, 200)}`)
      fs.mkdirSync(path.dirname(path.join(app, file!)), { recursive: true })
      fs.writeFileSync(path.join(app, file!), code + "\n")
    }
    // The examples the README does not show (tests of the programs it shows) run them.
    for (const name of fs.readdirSync(path.join(root, "examples"))) {
      const file = `examples/${name}`
      if (shown.some((block) => block.file === file)) continue
      fs.writeFileSync(path.join(app, file), Tour.asPublished(file, fs.readFileSync(path.join(root, file), "utf8")))
    }
    const written = fs.readdirSync(path.join(app, "examples")).map((name) => fs.readFileSync(path.join(app, "examples", name), "utf8"))
    assert.notInclude(written.join("\n"), "../src/")

    // Every package specifier they import resolves inside the app's node_modules.
    const specifiers = [...new Set(written.flatMap((source) => [...source.matchAll(/from "(effect-claude-code[^"]*)"/g)].map(([, s]) => s)))]
    assert.isAbove(specifiers.length, 1)
    fs.writeFileSync(path.join(app, "resolve.mjs"), `for (const s of ${JSON.stringify(specifiers)}) console.log(import.meta.resolve(s))`)
    const installed = path.join(fs.realpathSync(app), "node_modules", "effect-claude-code") + path.sep
    for (const url of run(process.execPath, ["resolve.mjs"], app, env).trim().split("\n")) {
      assert.isTrue(fs.realpathSync(new URL(url)).startsWith(installed), url)
    }

    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          allowImportingTsExtensions: true,
          noEmit: true,
          skipLibCheck: true
        },
        include: ["examples"]
      })
    )
    run(process.execPath, [path.join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], app, env)
    const report = path.join(work, "vitest.json")
    const vitest = [path.join(app, "node_modules", "vitest", "vitest.mjs"), "run", "--reporter=json", `--outputFile=${report}`]
    let failure = ""
    try {
      run(process.execPath, vitest, app, env)
    } catch (error) {
      failure = String((error as { readonly stderr?: string }).stderr ?? error)
    }
    assert.isTrue(fs.existsSync(report), failure)
    const results = (JSON.parse(fs.readFileSync(report, "utf8")) as {
      readonly testResults: ReadonlyArray<{
        readonly name: string
        readonly assertionResults: ReadonlyArray<{ readonly title: string; readonly status: string; readonly failureMessages: ReadonlyArray<string> }>
      }>
    }).testResults.flatMap((file) => file.assertionResults.map((test) => ({ file: path.relative(fs.realpathSync(app), file.name), ...test })))
    const failed = results.filter((test) => test.status !== "passed")
    assert.deepStrictEqual(failed.map((test) => `${test.file} ${test.title}: ${test.failureMessages.join("\n")}`), [])
    const tests = fs.readdirSync(path.join(app, "examples")).filter((name) => name.endsWith(".test.ts"))
    assert.isAbove(tests.length, 0)
    assert.sameMembers([...new Set(results.map((test) => test.file))], tests.map((name) => `examples/${name}`))
    assert.strictEqual(failure, "")
  }, 300_000)
})
