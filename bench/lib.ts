/**
 * Where the measured processes load the library from: the build main.ts
 * compiles into its temp dir (`ECC_BENCH_DIST`), i.e. JavaScript as users run
 * it, or `src/` (TypeScript stripped by Node) when a script runs on its own or
 * with `--src`. Stripping costs load time and about 30 MB of RSS that a user
 * of the package never pays.
 */
import * as path from "node:path"
import { pathToFileURL } from "node:url"

/** Imports `module` (e.g. `"stream/Decode"`) of the library. */
export const lib = <M>(module: string): Promise<M> => {
  const dist = process.env.ECC_BENCH_DIST
  const file = dist !== undefined && dist !== ""
    ? path.join(dist, `${module}.js`)
    : path.join(import.meta.dirname, "..", "src", `${module}.ts`)
  return import(pathToFileURL(file).href) as Promise<M>
}
