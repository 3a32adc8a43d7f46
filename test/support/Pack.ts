/**
 * What `npm pack` ships: the project built from a copy of its sources (so nothing is written into the
 * working tree) and packed into a temporary directory.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..", "..")

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly exports: Record<string, string | { readonly types: string; readonly default: string }>
  readonly bin: Record<string, string>
  readonly files: ReadonlyArray<string>
  readonly devDependencies: Record<string, string>
  readonly peerDependencies: Record<string, string>
}

export const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as Manifest

export const run = (command: string, args: ReadonlyArray<string>, cwd: string, env?: NodeJS.ProcessEnv) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env })

export interface Packed {
  /** The tarball's absolute path. */
  readonly tarball: string
  /** The paths inside the package it holds. */
  readonly files: ReadonlySet<string>
}

/** Builds a copy of the project in `work/pkg` (with `manifest` as its package.json) and packs it there. */
export const pack = (work: string, packedManifest: Manifest = manifest): Packed => {
  const pkg = path.join(work, "pkg")
  fs.mkdirSync(pkg, { recursive: true })
  for (const entry of ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "src", "scripts", "fixtures"]) {
    fs.cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true })
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(pkg, "node_modules"))
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify(packedManifest, null, 2))
  // The package's own build, as before publishing: the compiler, then the executable's bundle.
  run("npm", ["run", "build"], pkg)
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts"], pkg)) as Array<
    { readonly filename: string; readonly files: ReadonlyArray<{ readonly path: string }> }
  >
  return { tarball: path.join(pkg, packed.filename), files: new Set(packed.files.map((file) => file.path)) }
}
