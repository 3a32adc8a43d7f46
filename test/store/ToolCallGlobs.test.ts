/**
 * The globs of the tool-call index as the databases match them: a name glob (`tool:`, `command:`, `url:`) as
 * SQLite's GLOB and PostgreSQL's LIKE selects exactly what the filter selects, a path glob at least that.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import * as Redacted from "effect/Redacted"
import { DatabaseSync } from "node:sqlite"
import * as Ast from "../../src/filter/Ast.ts"
import * as ToolCalls from "../../src/store/internal/toolCalls.ts"
import * as Postgres from "../support/Postgres.ts"

const names = ["Bash", "bash", "Read", "mcp__github__list_prs", "mcp_x", "a%b", "a_b", "a[1]", "a\\b", "a*b", "a?b", "Ünï", "🙂x", ""]
const namePatterns = ["Bash", "B*", "*a*", "?ash", "mcp__*", "mcp_?", "a%b", "a_b", "a[1]", "a\\b", "a\\*", "a*b", "a?b", "Ü*", "?x", "*", "?"]
const paths = ["/work/app/src/a.ts", "src/a.ts", "src/x/y/b.md", "/src/a.ts", "a/b", "a/x/b", "/tmp/a b/c%d_e.ts", "srcx/a.ts", "/home/me/repo/src/deep/z.ts"]
const pathPatterns = ["src/**", "src/*.ts", "**/src/**", "a/**/b", "/tmp/**", "/work/*/src/?.ts", "*.md", "**/*.ts", "c%d_e.ts", "**/c%d_e.ts", "src/**/z.ts"]

const pairs = (patterns: ReadonlyArray<string>, values: ReadonlyArray<string>) =>
  patterns.flatMap((pattern) => values.map((value) => ({ pattern, value })))

// The path pairs the filter matches: the superset is checked on these.
const pathMatches = pairs(pathPatterns, paths).filter(({ pattern, value }) => Ast.matchPath(pattern, value))

describe("tool-call index globs", () => {
  it("SQLite GLOB: names exactly, paths a superset", () => {
    const db = new DatabaseSync(":memory:")
    try {
      const glob = db.prepare("SELECT ? GLOB ? AS hit")
      const hit = (value: string, pattern: string) => (glob.get(value, pattern) as { hit: number }).hit === 1
      for (const { pattern, value } of pairs(namePatterns, names)) {
        assert.strictEqual(hit(value, ToolCalls.toGlob(pattern, "name")), Ast.matchName(pattern, value), `${pattern} ~ ${value}`)
      }
      assert.isAbove(pathMatches.length, 10)
      for (const { pattern, value } of pathMatches) assert.isTrue(hit(value, ToolCalls.toGlob(pattern, "path")), `${pattern} ~ ${value}`)
    } finally {
      db.close()
    }
  })

  it.effect("PostgreSQL LIKE: names exactly, paths a superset", () =>
    Effect.gen(function*() {
      const server = yield* Postgres.start
      const context = yield* Layer.build(PgClient.layer({ url: Redacted.make(server.url) })).pipe(Effect.orDie)
      const sql = Context.get(context, SqlClient.SqlClient)
      const hit = (value: string, pattern: string) =>
        Effect.map(sql<{ readonly hit: boolean }>`SELECT ${value}::text LIKE ${pattern} ESCAPE '\\' AS hit`, ([row]) => row!.hit)
      for (const { pattern, value } of pairs(namePatterns, names)) {
        assert.strictEqual(yield* hit(value, ToolCalls.toLike(pattern, "name")), Ast.matchName(pattern, value), `${pattern} ~ ${value}`)
      }
      for (const { pattern, value } of pathMatches) assert.isTrue(yield* hit(value, ToolCalls.toLike(pattern, "path")), `${pattern} ~ ${value}`)
    }).pipe(Effect.scoped, Effect.orDie), 120_000)
})
