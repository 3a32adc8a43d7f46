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

const chunkPrefix = "bin-"

/**
 * Bundles the executable whose entry is `input` into `dir`: `main.js` there, and its chunks. A test bundles
 * the sources this way, to run the bin as it ships.
 */
export const bundle = async (input: string, dir: string): Promise<void> => {
  await build({
    input,
    platform: "node",
    logLevel: "warn",
    output: {
      dir,
      format: "esm",
      minify: true,
      entryFileNames: "main.js",
      chunkFileNames: `${chunkPrefix}[name]-[hash].js`
    }
  })
}

if (import.meta.main) {
  const cli = path.resolve(import.meta.dirname, "..", "dist", "cli")
  // Chunks of an earlier bundle: their names change with their contents.
  for (const name of fs.readdirSync(cli)) {
    if (name.startsWith(chunkPrefix)) fs.rmSync(path.join(cli, name))
  }
  await bundle(path.join(cli, "main.js"), cli)
  // The compiler's source map describes the module the bundle replaced.
  fs.rmSync(path.join(cli, "main.js.map"), { force: true })
}
