/**
 * The fake CLI process that `FaultCli` starts: `node faultCliMain.ts <plan.json> [claude args...]`.
 * Plain Node, no Effect, so it starts fast and its behaviour is only what the plan says.
 *
 * @internal
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import type { Plan, Report, Step } from "./FaultCli.ts"

// `FaultCli.make` adds where to write the pid and the reports.
const plan: Plan & { readonly pidFile: string; readonly childFile: string; readonly reportPrefix: string } = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8"))
const report: { stdoutBytes: number; stderrBytes: number; sigterms: number; stdin: string } = {
  stdoutBytes: 0,
  stderrBytes: 0,
  sigterms: 0,
  stdin: ""
}
const save = () => fs.writeFileSync(`${plan.reportPrefix}${process.pid}.json`, JSON.stringify(report satisfies Report))

fs.appendFileSync(plan.pidFile, `${process.pid}\n`)
process.on("SIGTERM", () => {
  report.sigterms++
  save()
  if (plan.ignoreSigterm) return
  // Die by the signal itself, as the real CLI does, so the parent sees `signal: SIGTERM`.
  process.removeAllListeners("SIGTERM")
  process.kill(process.pid, "SIGTERM")
})
// A reader that went away is not this script's problem: it stops writing and keeps running the plan.
process.stdout.on("error", () => {})
process.stderr.on("error", () => {})

const out = (fd: "stdout" | "stderr") => fd === "stdout" ? process.stdout : process.stderr

// Waits for the pipe when it is full, so a flood goes exactly as fast as the reader lets it.
const write = async (fd: "stdout" | "stderr", bytes: Buffer): Promise<void> => {
  const stream = out(fd)
  if (fd === "stdout") report.stdoutBytes += bytes.length
  else report.stderrBytes += bytes.length
  if (!stream.write(bytes)) await new Promise((resolve) => stream.once("drain", resolve))
}

// Resolves once everything written so far has reached the pipes.
const flushed = () =>
  Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))))

const never = () => new Promise<never>(() => setInterval(() => {}, 1 << 30))

const run = async (step: Step): Promise<void> => {
  switch (step._tag) {
    case "Write":
      return write(step.fd, Buffer.from(step.text))
    case "Flood": {
      const bytes = Buffer.from(step.text)
      for (let i = 0; step.count === null || i < step.count; i++) await write(step.fd, bytes)
      return
    }
    case "Sleep":
      return new Promise((resolve) => setTimeout(resolve, step.millis))
    case "Hang":
      return never()
    case "Exit":
      await flushed()
      save()
      return process.exit(step.code)
    case "Child": {
      const holds = (fd: "stdout" | "stderr") => step.holds.includes(fd) ? "inherit" : "ignore"
      const [command, args] = step.chatty === true
        ? ["/bin/sh", ["-c", "while :; do echo; sleep 0.1; done"]] as const
        : ["sleep", ["300"]] as const
      const started = childProcess.spawn(command, args, {
        stdio: ["ignore", holds("stdout"), holds("stderr")],
        detached: step.ownSession === true
      })
      started.unref()
      fs.appendFileSync(plan.childFile, `${started.pid}\n`)
      return
    }
    case "Kill":
      await flushed()
      save()
      process.removeAllListeners(step.signal)
      process.kill(process.pid, step.signal)
      return never()
  }
}

const readStdin = async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  report.stdin = Buffer.concat(chunks).toString("utf8")
}

const main = async () => {
  // Like `claude -p`, read the whole prompt before answering; unless the plan says never to read stdin.
  if (plan.readStdin) await readStdin()
  for (const step of plan.steps) await run(step)
  await flushed()
  save()
}

main().catch((error) => {
  process.stderr.write(`fault CLI failed: ${String(error)}\n`)
  process.exit(70)
})
