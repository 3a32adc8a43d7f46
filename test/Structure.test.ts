/**
 * The shape of src/: an import graph without cycles, folders on floors that only look down, and a layers/ folder
 * holding only layers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const src = path.resolve(import.meta.dirname, "..", "src")

const modules = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? modules(file) : entry.name.endsWith(".ts") ? [file] : []
  })

// Every relative specifier of an `import` or `export ... from`, type-only ones included: modules whose types
// depend on each other are one tangle, even where the types are erased at run time.
const specifiers = (text: string): Array<string> =>
  [...text.matchAll(/^(?:import|export)\s[^;"]*?\sfrom\s+"(\.[^"]+)"/gm)].map((match) => match[1]!)

const graph = (): Map<string, Array<string>> =>
  new Map(modules(src).map((file) => [
    path.relative(src, file),
    specifiers(fs.readFileSync(file, "utf8")).map((spec) => path.relative(src, path.resolve(path.dirname(file), spec)))
  ]))

// Whether a constructor gives a Layer, directly or after one more call (`Recording.layer(path)(self)`).
const isLayerMaker = (make: Function): boolean => {
  try {
    const made = make("x.jsonl")
    return Layer.isLayer(made) || (typeof made === "function" && Layer.isLayer(made(Layer.empty)))
  } catch {
    return false
  }
}

/** The cycles found by a depth-first walk, each as the modules on it. */
const cycles = (edges: Map<string, Array<string>>): Array<Array<string>> => {
  const found: Array<Array<string>> = []
  const state = new Map<string, "open" | "done">()
  const stack: Array<string> = []
  const visit = (node: string): void => {
    state.set(node, "open")
    stack.push(node)
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next])
      else if (state.get(next) === undefined) visit(next)
    }
    stack.pop()
    state.set(node, "done")
  }
  for (const node of edges.keys()) if (state.get(node) === undefined) visit(node)
  return found
}

/**
 * The floors of src/, lowest first. A module sits on the floor of the longest entry naming it (a folder, or a module
 * of it); an import may only go to its own floor or a lower one. The shared `internal/` holds helpers that look no
 * higher than `stream/`; an internal helper of the core's top-level modules is named on its users' floor. The
 * store contract sits under the core that names it, its stores (`store/`) above.
 */
const floors: ReadonlyArray<ReadonlyArray<string>> = [
  ["schema"],
  ["stream"],
  ["internal", "Redaction.ts", "filter", "transcript"],
  ["QueryOptions.ts", "ClaudeCliError.ts", "store/StoreContract.ts", "store/internal/info.ts"],
  ["Process.ts", "Telemetry.ts", "store", "internal/badLine.ts", "internal/cliErrorRedaction.ts", "internal/queryOptions.ts", "internal/tempDirs.ts"],
  ["session", "governance"],
  ["ClaudeCli.ts", "SparePool.ts"],
  ["layers", "testing"],
  ["ai", "cluster", "cli"],
  ["index.ts"]
]

/** The floor entry a module belongs to: the longest entry that is the module or a folder holding it. */
const placeOf = (table: ReadonlyArray<ReadonlyArray<string>>, module: string): string | undefined =>
  table.flat().filter((entry) => module === entry || module.startsWith(`${entry}/`))
    .sort((a, b) => b.length - a.length)[0]

/**
 * Where a graph leaves its floors: each import into a higher floor, each cycle between entries of one floor, and each
 * module no entry places.
 */
const floorBreaches = (
  table: ReadonlyArray<ReadonlyArray<string>>,
  edges: Map<string, Array<string>>
): Array<string> => {
  const level = new Map(table.flatMap((entries, index) => entries.map((entry) => [entry, index] as const)))
  const breaches: Array<string> = []
  const folders = new Map<string, Array<string>>()
  for (const [from, tos] of edges) {
    const a = placeOf(table, from)
    if (a === undefined) {
      breaches.push(`unplaced: ${from}`)
      continue
    }
    for (const to of tos) {
      const b = placeOf(table, to)
      if (b === undefined || a === b) continue
      if (level.get(b)! > level.get(a)!) breaches.push(`up: ${from} -> ${to}`)
      // A cycle through an import up is already reported by it; what is left is a cycle on one floor.
      if (level.get(b) !== level.get(a)) continue
      const next = folders.get(a) ?? []
      if (!next.includes(b)) folders.set(a, [...next, b])
    }
  }
  for (const cycle of cycles(folders)) breaches.push(`cycle: ${cycle.join(" -> ")}`)
  return breaches.sort()
}

describe("structure of src/", () => {
  it("every relative import resolves to a module", () => {
    const edges = graph()
    const missing = [...edges].flatMap(([from, tos]) => tos.filter((to) => !edges.has(to)).map((to) => `${from} -> ${to}`))
    assert.deepStrictEqual(missing, [])
    assert.isAbove(edges.size, 50)
  })

  it("has no import cycle", () => {
    assert.deepStrictEqual(cycles(graph()).map((cycle) => cycle.join(" -> ")), [])
  })

  it("imports only from its own floor or lower ones", () => {
    assert.deepStrictEqual(floorBreaches(floors, graph()), [])
  })

  it("finds an import up a floor and a folder cycle", () => {
    const table = [["low"], ["mid", "mid/x.ts", "side"], ["top"]]
    const edges = new Map([
      ["low/a.ts", ["mid/b.ts"]],
      ["mid/b.ts", ["low/a.ts", "mid/x.ts"]],
      ["mid/x.ts", ["side/c.ts"]],
      ["side/c.ts", ["mid/b.ts", "top/d.ts"]],
      ["top/d.ts", ["low/a.ts"]],
      ["stray.ts", []]
    ])
    assert.deepStrictEqual(floorBreaches(table, edges), [
      "cycle: mid -> mid/x.ts -> side -> mid",
      "unplaced: stray.ts",
      "up: low/a.ts -> mid/b.ts",
      "up: side/c.ts -> top/d.ts"
    ])
    assert.deepStrictEqual(floorBreaches(table, new Map([["top/d.ts", ["low/a.ts"]]])), [])
  })

  it("finds a cycle when there is one", () => {
    const edges = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", []]])
    assert.deepStrictEqual(cycles(edges), [["a.ts", "b.ts", "c.ts", "a.ts"]])
    assert.deepStrictEqual(
      specifiers(`import type * as A from "./A.ts"\nimport {\n  b,\n  type C\n} from "../b/C.ts"\nimport * as E from "effect/Effect"\nexport * as D from "./D.ts"`),
      ["./A.ts", "../b/C.ts", "./D.ts"]
    )
  })

  it("layers/ holds only modules exporting a Layer", async () => {
    const dir = path.join(src, "layers")
    const withoutLayer: Array<string> = []
    for (const name of fs.readdirSync(dir).filter((name) => name.endsWith(".ts") && name !== "index.ts")) {
      const module = await import(path.join(dir, name)) as Record<string, unknown>
      // A Layer value, or a `layer...` constructor whose result is one.
      const exportsLayer = Object.entries(module).some(([key, value]) =>
        Layer.isLayer(value) || (typeof value === "function" && /^layer/.test(key) && isLayerMaker(value))
      )
      if (!exportsLayer) withoutLayer.push(name)
    }
    assert.deepStrictEqual(withoutLayer, [])
    assert.isFalse(isLayerMaker(() => 1))
  })

  it("the filter grammar is in the declarations of Syntax", () => {
    const file = path.join(src, "filter", "Syntax.ts")
    const { outputText } = ts.transpileDeclaration(fs.readFileSync(file, "utf8"), { fileName: file })
    const parseAst = outputText.slice(0, outputText.indexOf("export declare const parseAst"))
    assert.include(parseAst.slice(parseAst.lastIndexOf("/**")), "expr    := and")
  })
})
