import * as fs from "node:fs"

// The CLIs this test process runs (sessions read stream-json from stdin), found in the process table.
export const cliPids = (): ReadonlyArray<number> => {
  const parents = new Map<number, number>()
  const clis: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes("--input-format")) clis.push(Number(entry))
    } catch {
      // Gone meanwhile.
    }
  }
  const ours = (pid: number): boolean => pid === process.pid || (pid > 1 && ours(parents.get(pid) ?? 0))
  return clis.filter(ours)
}
