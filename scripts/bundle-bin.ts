/**
 * `node scripts/bundle-bin.ts` (the second step of `npm run build`, after `tsc`): the package's executable
 * bundled into a few files in place of the compiled modules it loads, so that it starts in a fraction of the
 * time (a Node process resolves and compiles each of the hundreds of modules an ES module graph holds).
 * `dist/cli/main.js` becomes the bundle's entry, with chunks beside it for what it loads on demand.
 * The compiled modules and their declarations stay in `dist/` for the library's entry points.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { build } from "rolldown"

const cli = path.resolve(import.meta.dirname, "..", "dist", "cli")
const chunkPrefix = "bin-"

// Chunks of an earlier bundle: their names change with their contents.
for (const name of fs.readdirSync(cli)) {
  if (name.startsWith(chunkPrefix)) fs.rmSync(path.join(cli, name))
}

await build({
  input: path.join(cli, "main.js"),
  platform: "node",
  logLevel: "warn",
  output: {
    dir: cli,
    format: "esm",
    minify: true,
    entryFileNames: "[name].js",
    chunkFileNames: `${chunkPrefix}[name]-[hash].js`
  }
})
// The compiler's source map describes the module the bundle replaced.
fs.rmSync(path.join(cli, "main.js.map"), { force: true })
