import { defineConfig } from "vitest/config"

export default defineConfig({
  // @effect/sql-sqlite-node 4.0.0-beta.102 (the Effect 4 SQLite driver the SQL session store is tested on)
  // imports `effect/unstable/sql/...` and `effect/unstable/reactivity/...`, which Effect 4.1 exports without
  // `unstable/`: the driver is inlined so that the alias reaches its imports.
  resolve: { alias: [{ find: /^effect\/unstable\//, replacement: "effect/" }] },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    // Real-CLI tests spawn a 380 MB native binary; two cores do not run many at once.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    server: { deps: { inline: ["@effect/sql-sqlite-node"] } }
  }
})
