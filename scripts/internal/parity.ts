/**
 * What the official TypeScript SDK declares (its `Options` fields, `Query` methods, control request subtypes
 * and hook events, read from `sdk.d.ts` with the TypeScript compiler), what this library answers for each
 * (`scripts/sdk-parity.json`), and the README section that puts the two side by side.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

export const root = path.resolve(import.meta.dirname, "..", "..")
export const readmePath = path.join(root, "README.md")
export const mappingPath = path.join(root, "scripts", "sdk-parity.json")
export const declarationsPath = path.join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.d.ts")
export const start = "<!-- sdk-parity:start -->"
export const end = "<!-- sdk-parity:end -->"

/** The kinds of things the SDK declares, in the order the table shows them. */
export const kinds = ["options", "methods", "controlRequests", "hookEvents"] as const
export type Kind = (typeof kinds)[number]

const titles: Record<Kind, string> = {
  options: "`Options` fields",
  methods: "`Query` methods",
  controlRequests: "Control requests (`subtype`)",
  hookEvents: "Hook events"
}

export type Declared = Record<Kind, ReadonlyArray<string>>

/** The library's answer per name: where it lives, or `not yet: <why>`. */
export type Mapping = Record<Kind, Record<string, string>>

const nameOf = (name: ts.PropertyName | undefined): string | undefined =>
  name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined

/** Reads the declared names from the text of `sdk.d.ts`. */
export const declared = (source: string = fs.readFileSync(declarationsPath, "utf8")): Declared => {
  const file = ts.createSourceFile("sdk.d.ts", source, ts.ScriptTarget.Latest, true)
  const aliases = new Map<string, ts.TypeNode>()
  let query: ts.InterfaceDeclaration | undefined
  file.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type)
    if (ts.isInterfaceDeclaration(node) && node.name.text === "Query") query = node
  })
  const alias = (name: string): ts.TypeNode => {
    const type = aliases.get(name)
    if (type === undefined) throw new Error(`sdk.d.ts declares no type ${name}`)
    return type
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
  const options = members(alias("Options")).flatMap((m) => ts.isPropertySignature(m) ? [nameOf(m.name)!] : [])
  if (query === undefined) throw new Error("sdk.d.ts declares no interface Query")
  const methods = [...new Set(query.members.flatMap((m) => ts.isMethodSignature(m) ? [nameOf(m.name)!] : []))]
  const inner = alias("SDKControlRequestInner")
  if (!ts.isUnionTypeNode(inner)) throw new Error("SDKControlRequestInner is not a union")
  const controlRequests = inner.types.flatMap((t) => {
    if (!ts.isTypeReferenceNode(t) || !ts.isIdentifier(t.typeName)) return []
    const subtype = members(alias(t.typeName.text)).find((m) => nameOf(m.name) === "subtype")
    return subtype !== undefined && ts.isPropertySignature(subtype) && subtype.type !== undefined
      ? literals(subtype.type)
      : []
  })
  return { options, methods, controlRequests, hookEvents: literals(alias("HookEvent")) }
}

export const mapping = (): Mapping => JSON.parse(fs.readFileSync(mappingPath, "utf8"))

export const isNotYet = (answer: string): boolean => answer.startsWith("not yet")

/** What the SDK declares that the mapping does not list, and what the mapping lists that the SDK no longer declares. */
export const differences = (sdk: Declared, map: Mapping) =>
  kinds.flatMap((kind) => [
    ...sdk[kind].filter((name) => !(name in (map[kind] ?? {}))).map((name) => `${kind}.${name}: not in the mapping`),
    ...Object.keys(map[kind] ?? {}).filter((name) => !sdk[kind].includes(name)).map((name) =>
      `${kind}.${name}: no longer declared by the SDK`
    )
  ])

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ")

/** The README section's body (between the markers), in the SDK's declaration order. */
export const section = (sdk: Declared, map: Mapping, version: string): string => {
  const lines = [
    "",
    `What the official TypeScript SDK (\`@anthropic-ai/claude-agent-sdk\` ${version}) declares, and this`,
    "library's counterpart. Generated from the SDK's `sdk.d.ts` and `scripts/sdk-parity.json` by",
    "`npm run sdk:parity`; `test/SdkParity.test.ts` fails when the SDK declares a name the mapping does not list,",
    "or when this section is stale.",
    ""
  ]
  for (const kind of kinds) {
    const names = sdk[kind]
    const missing = names.filter((name) => isNotYet(map[kind][name] ?? "not yet")).length
    lines.push(`**${titles[kind]}**: ${names.length - missing} of ${names.length} covered.`, "")
    lines.push("| SDK | effect-claude-code |", "| --- | --- |")
    for (const name of names) lines.push(`| \`${name}\` | ${cell(map[kind][name] ?? "not yet")} |`)
    lines.push("")
  }
  return lines.join("\n")
}

export const sdkVersion = (): string =>
  JSON.parse(fs.readFileSync(path.join(path.dirname(declarationsPath), "package.json"), "utf8")).version

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
