/**
 * What the official TypeScript SDK declares (its `Options` fields, `Query` methods, control requests, top-level
 * functions and hook events, read from `sdk.d.ts` with the TypeScript compiler), with the parameters and
 * answer of each and every SDK type they reach; what this library answers for each
 * (`scripts/sdk-parity.json`); the signatures those answers were checked against
 * (`scripts/sdk-parity.signatures.json`); and the README section that puts them side by side.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

export const root = path.resolve(import.meta.dirname, "..", "..")
export const readmePath = path.join(root, "README.md")
export const mappingPath = path.join(root, "scripts", "sdk-parity.json")
export const signaturesPath = path.join(root, "scripts", "sdk-parity.signatures.json")
export const declarationsPath = path.join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.d.ts")
export const start = "<!-- sdk-parity:start -->"
export const end = "<!-- sdk-parity:end -->"

/** The kinds of things the SDK declares, in the order the table shows them. */
export const kinds = ["options", "methods", "controlRequests", "functions", "hookEvents"] as const
export type Kind = (typeof kinds)[number]

const titles: Record<Kind, string> = {
  options: "`Options` fields",
  methods: "`Query` methods",
  controlRequests: "Control requests (`subtype`)",
  functions: "Top-level functions",
  hookEvents: "Hook events"
}

/** One thing the SDK declares: its signature (parameters and answer, comments left out) and the SDK types it names. */
export interface Entry {
  readonly name: string
  readonly signature: string
  readonly uses: ReadonlyArray<string>
}

export interface Declared {
  readonly entries: Record<Kind, ReadonlyArray<Entry>>
  /** A digest of each SDK type an entry reaches, directly or through other types. */
  readonly types: Readonly<Record<string, string>>
}

/** The library's answer per name: where it lives, or `not yet: <why>`. */
export type Mapping = Record<Kind, Record<string, string>>

/** What the answers were checked against: the signature per `kind.name`, the digest per type. */
export interface Signatures {
  readonly entries: Record<string, string>
  readonly types: Record<string, string>
}

const nameOf = (name: ts.PropertyName | ts.EntityName | undefined): string | undefined =>
  name === undefined
    ? undefined
    : ts.isIdentifier(name) || ts.isStringLiteral(name)
    ? name.text
    : ts.isQualifiedName(name)
    ? name.right.text
    : undefined

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed })

/** Reads what `sdk.d.ts` declares from its text. */
export const declared = (source: string = fs.readFileSync(declarationsPath, "utf8")): Declared => {
  const file = ts.createSourceFile("sdk.d.ts", source, ts.ScriptTarget.Latest, true)
  const print = (node: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, node, file).replace(/\s+/g, " ").trim()
  // Types, interfaces and classes by name (an interface may be declared more than once).
  const declarations = new Map<string, Array<ts.Node>>()
  const functions = new Map<string, Array<ts.FunctionDeclaration>>()
  let query: ts.InterfaceDeclaration | undefined
  file.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node)) {
      const name = node.name?.text
      if (name !== undefined) declarations.set(name, [...(declarations.get(name) ?? []), node])
    }
    if (ts.isInterfaceDeclaration(node) && node.name.text === "Query") query = node
    if (ts.isFunctionDeclaration(node) && node.name !== undefined) {
      functions.set(node.name.text, [...(functions.get(node.name.text) ?? []), node])
    }
  })
  const alias = (name: string): ts.TypeNode => {
    const node = declarations.get(name)?.find(ts.isTypeAliasDeclaration)
    if (node === undefined) throw new Error(`sdk.d.ts declares no type ${name}`)
    return node.type
  }
  const members = (type: ts.TypeNode): ReadonlyArray<ts.TypeElement> => {
    if (!ts.isTypeLiteralNode(type)) throw new Error(`expected an object type, got ${ts.SyntaxKind[type.kind]}`)
    return type.members
  }
  const literals = (type: ts.TypeNode): ReadonlyArray<string> =>
    ts.isUnionTypeNode(type)
      ? type.types.flatMap(literals)
      : ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)
      ? [type.literal.text]
      : []
  // The SDK's own types a node names (`coreTypes.X` is X).
  const named = (node: ts.Node): Array<string> => {
    const found: Array<string> = []
    const visit = (child: ts.Node): void => {
      const name = ts.isTypeReferenceNode(child)
        ? nameOf(child.typeName)
        : ts.isExpressionWithTypeArguments(child) && ts.isIdentifier(child.expression)
        ? child.expression.text
        : ts.isTypeQueryNode(child)
        ? nameOf(child.exprName)
        : undefined
      if (name !== undefined && declarations.has(name)) found.push(name)
      ts.forEachChild(child, visit)
    }
    visit(node)
    return found
  }
  const reach = new Map<string, ReadonlyArray<string>>()
  // Every SDK type reachable from the nodes (and the named types), in a stable order.
  const closure = (nodes: ReadonlyArray<ts.Node>, types: ReadonlyArray<string>): ReadonlyArray<string> => {
    const seen = new Set<string>()
    const queue = [...types, ...nodes.flatMap(named)]
    while (queue.length > 0) {
      const name = queue.shift()!
      if (seen.has(name)) continue
      seen.add(name)
      if (!reach.has(name)) reach.set(name, declarations.get(name)!.flatMap(named))
      queue.push(...reach.get(name)!)
    }
    return [...seen].sort()
  }
  const entry = (
    name: string,
    nodes: ReadonlyArray<ts.Node>,
    signature = nodes.map(print).join(" "),
    types: ReadonlyArray<string> = []
  ): Entry => ({ name, signature, uses: closure(nodes, types) })

  const options = members(alias("Options")).flatMap((m) =>
    ts.isPropertySignature(m) ? [entry(nameOf(m.name)!, [m])] : []
  )
  if (query === undefined) throw new Error("sdk.d.ts declares no interface Query")
  const overloads = new Map<string, Array<ts.MethodSignature>>()
  for (const m of query.members) {
    if (ts.isMethodSignature(m)) overloads.set(nameOf(m.name)!, [...(overloads.get(nameOf(m.name)!) ?? []), m])
  }
  const methods = [...overloads].map(([name, nodes]) => entry(name, nodes))
  const inner = alias("SDKControlRequestInner")
  if (!ts.isUnionTypeNode(inner)) throw new Error("SDKControlRequestInner is not a union")
  const controlRequests = inner.types.flatMap((t) => {
    if (!ts.isTypeReferenceNode(t) || !ts.isIdentifier(t.typeName)) return []
    const requestName = t.typeName.text
    const subtype = members(alias(requestName)).find((m) => nameOf(m.name) === "subtype")
    const responseName = requestName.replace(/Request$/, "Response")
    const response = declarations.has(responseName) ? [responseName] : []
    return subtype !== undefined && ts.isPropertySignature(subtype) && subtype.type !== undefined
      ? literals(subtype.type).map((name) =>
        entry(name, [t], `(request: ${requestName}) => ${response[0] ?? "{}"}`, response)
      )
      : []
  })
  const topLevel = [...functions].map(([name, nodes]) =>
    entry(name, nodes, nodes.map((n) => print(n).replace(/^export declare function /, "").replace(/;$/, "")).join("; "))
  )
  const hookEvents = literals(alias("HookEvent")).map((event) => {
    const parts = [`${event}HookInput`, `${event}HookSpecificOutput`].filter((name) => declarations.has(name))
    return entry(event, [], parts.join(" => "), parts)
  })
  const entries = { options, methods, controlRequests, functions: topLevel, hookEvents }
  const used = [...new Set(kinds.flatMap((kind) => entries[kind].flatMap((e) => e.uses)))].sort()
  const digest = (name: string) =>
    crypto.createHash("sha256").update(declarations.get(name)!.map(print).join("\n")).digest("hex").slice(0, 12)
  return { entries, types: Object.fromEntries(used.map((name) => [name, digest(name)])) }
}

export const mapping = (): Mapping => JSON.parse(fs.readFileSync(mappingPath, "utf8"))

export const signatures = (): Signatures => JSON.parse(fs.readFileSync(signaturesPath, "utf8"))

/** The signatures of what the SDK declares now, to record once the answers are checked against them. */
export const recorded = (sdk: Declared): Signatures => ({
  entries: Object.fromEntries(kinds.flatMap((kind) => sdk.entries[kind].map((e) => [`${kind}.${e.name}`, e.signature]))),
  types: { ...sdk.types }
})

export const isNotYet = (answer: string): boolean => answer.startsWith("not yet")

/** The names the SDK declares, by kind. */
export const names = (sdk: Declared, kind: Kind): ReadonlyArray<string> => sdk.entries[kind].map((e) => e.name)

/**
 * What the SDK declares that the mapping does not list, what the mapping lists that the SDK no longer
 * declares, and every signature or type that is no longer the one the answers were checked against.
 */
export const differences = (sdk: Declared, map: Mapping, checked: Signatures) => {
  const byName = kinds.flatMap((kind) => [
    ...names(sdk, kind).filter((name) => !(name in (map[kind] ?? {}))).map((name) => `${kind}.${name}: not in the mapping`),
    ...Object.keys(map[kind] ?? {}).filter((name) => !names(sdk, kind).includes(name)).map((name) =>
      `${kind}.${name}: no longer declared by the SDK`
    )
  ])
  const signatureChanges = kinds.flatMap((kind) =>
    sdk.entries[kind].flatMap((e) => {
      const before = checked.entries[`${kind}.${e.name}`]
      return before === undefined
        ? [`${kind}.${e.name}: not checked yet: ${e.signature}`]
        : before !== e.signature
        ? [`${kind}.${e.name}: was ${before}, is now ${e.signature}`]
        : []
    })
  )
  const users = (type: string) =>
    kinds.flatMap((kind) => sdk.entries[kind].filter((e) => e.uses.includes(type)).map((e) => `${kind}.${e.name}`))
  const typeChanges = Object.entries(sdk.types).flatMap(([type, digest]) =>
    checked.types[type] === digest ? [] : [
      `type ${type}: ${checked.types[type] === undefined ? "new" : "changed"}, reached by ${users(type).join(", ")}`
    ]
  )
  return [...byName, ...signatureChanges, ...typeChanges]
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ")

// The kinds whose table shows the SDK's signature beside the answer.
const withSignature: ReadonlySet<Kind> = new Set(["methods", "functions"])

/** The README section's body (between the markers), in the SDK's declaration order. */
export const section = (sdk: Declared, map: Mapping, version: string): string => {
  const lines = [
    "",
    `What the official TypeScript SDK (\`@anthropic-ai/claude-agent-sdk\` ${version}) declares, and this`,
    "library's counterpart: it takes the same inputs and gives the same answer, typed, unless the row says",
    "otherwise. Generated from the SDK's `sdk.d.ts` and `scripts/sdk-parity.json` by `npm run sdk:parity`, which",
    "reads each name's parameters and answer and every SDK type they reach (`scripts/sdk-parity.signatures.json`",
    "holds what the answers were checked against). `test/SdkParity.test.ts` fails when the SDK declares a name",
    "the mapping does not list, changes a signature or a type since, or when this section is stale.",
    "`npm run sdk:parity -- --sdk <path to a newer sdk.d.ts>` lists what it changed; once the code and the rows",
    "match it, `npm run sdk:parity -- --accept` records its signatures.",
    ""
  ]
  for (const kind of kinds) {
    const all = names(sdk, kind)
    const missing = all.filter((name) => isNotYet(map[kind][name] ?? "not yet")).length
    lines.push(`**${titles[kind]}**: ${all.length - missing} of ${all.length} covered.`, "")
    if (withSignature.has(kind)) {
      lines.push("| SDK | SDK signature | effect-claude-code |", "| --- | --- | --- |")
      for (const e of sdk.entries[kind]) {
        lines.push(`| \`${e.name}\` | \`${cell(e.signature)}\` | ${cell(map[kind][e.name] ?? "not yet")} |`)
      }
    } else {
      lines.push("| SDK | effect-claude-code |", "| --- | --- |")
      for (const name of all) lines.push(`| \`${name}\` | ${cell(map[kind][name] ?? "not yet")} |`)
    }
    lines.push("")
  }
  return lines.join("\n")
}

export const sdkVersion = (declarations: string = declarationsPath): string =>
  JSON.parse(fs.readFileSync(path.join(path.dirname(declarations), "package.json"), "utf8")).version

export const replaceSection = (readme: string, body: string): string => {
  const from = readme.indexOf(start)
  const to = readme.indexOf(end)
  if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end} section`)
  return readme.slice(0, from + start.length) + "\n" + body + "\n" + readme.slice(to)
}

export const currentSection = (readme: string): string => {
  const from = readme.indexOf(start)
  const to = readme.indexOf(end)
  return from === -1 || to < from ? "" : readme.slice(from + start.length + 1, to - 1)
}
