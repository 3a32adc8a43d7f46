/**
 * Starting a process as the leader of a new process group in the host's session. Node's only way to a group of
 * its own is `detached`, which is `setsid`: a new session, and where the kernel groups sessions for scheduling
 * (Linux, `kernel.sched_autogroup_enabled`), a scheduling group of its own too. A CLI that fills its pipe must
 * then wait for its group's turn each time before it writes again; on a loaded machine `npm run bench` read
 * such a child at half the speed of one in the host's session. A tiny `perl` wrapper calls `setpgrp` and
 * `exec`s the executable (same pid, same pipes), so the group can still be ended as a whole.
 */
import * as ChildProcess from "effect/process/ChildProcess"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"

// Leads its group, then becomes the executable (argv[0] as given); exit 127 only if that exec fails. On Linux it
// first asks for SIGTERM when the host dies (`prctl(PR_SET_PDEATHSIG)`, kept across the exec), and ends if the
// host is already gone: the host-death guard's watcher starts only once the process has started, and a host
// SIGKILLed in between (a chaos run's runners, stopped as they started CLIs) left the CLI running for good.
const wrapper = `my ($prctl, $host, $file) = splice(@ARGV, 0, 3); ` +
  `if ($prctl) { syscall($prctl, 1, 15); exit 1 if getppid() != $host } ` +
  `setpgrp(0, 0); exec { $file } @ARGV; print STDERR "cannot run $file: $!\\n"; exit 127`

// The number of the `prctl` system call where the wrapper can ask for it (Linux on x64 and arm64); 0 elsewhere.
const prctl = process.platform !== "linux" ? 0 : process.arch === "x64" ? 157 : process.arch === "arm64" ? 167 : 0

const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

// Looked for once: the fixed paths only, never `PATH`, so the wrapper is not whatever `perl` comes first.
let perl: string | null | undefined
const findPerl = (): string | null => perl ??= ["/usr/bin/perl", "/bin/perl"].find(isExecutable) ?? null

// With a controlling terminal, a group in the host's session is a background job of it: reading the terminal
// (a tool prompting through /dev/tty) would stop the process for good. A session of its own has no terminal.
// Looked at once: a process keeps its controlling terminal (only `setsid`, which Node never calls on itself, drops it).
let terminal: boolean | undefined
const hasTerminal = (): boolean => {
  if (terminal !== undefined) return terminal
  try {
    fs.closeSync(fs.openSync("/dev/tty", "r"))
    terminal = true
  } catch {
    terminal = false
  }
  return terminal
}

const unwrap = (value: string | Redacted.Redacted<string> | undefined) =>
  value === undefined || typeof value === "string" ? value : Redacted.value(value)

// The file Node would run, found as Node looks it up (the command's `PATH`, `/usr/bin:/bin` in an environment
// without one); `undefined` when there is none, and Node's own spawn then reports it (`ENOENT`, `EACCES`).
const resolve = (command: ChildProcess.StandardCommand): string | undefined => {
  const { cwd, env, extendEnv } = command.options
  if (command.command.includes("/")) {
    const file = path.resolve(cwd ?? process.cwd(), command.command)
    return isExecutable(file) ? file : undefined
  }
  const own = env === undefined ? undefined : Object.keys(env).find((key) => key === "PATH")
  const searchPath = own !== undefined
    ? unwrap(env![own])
    : env === undefined || extendEnv === true
    ? process.env.PATH
    : "/usr/bin:/bin"
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    const file = path.resolve(cwd ?? process.cwd(), dir === "" ? "." : dir, command.command)
    if (isExecutable(file)) return file
  }
  return undefined
}

/**
 * `command` started through the wrapper, as the leader of a group of its own in the host's session, where that
 * is possible: a command that would otherwise get a session of its own (`detached` not set, no shell), with
 * `perl` at hand, an executable that exists, and no controlling terminal. Otherwise `command` as it is.
 */
export const inOwnGroup = (command: ChildProcess.Command): ChildProcess.Command => {
  if (command._tag !== "StandardCommand" || process.platform === "win32") return command
  const { detached, shell } = command.options
  if (detached !== undefined || (shell !== undefined && shell !== false)) return command
  const wrapperPath = findPerl()
  const file = wrapperPath === null ? undefined : resolve(command)
  if (wrapperPath === null || file === undefined || hasTerminal()) return command
  return ChildProcess.make(wrapperPath, ["-e", wrapper, "--", String(prctl), String(process.pid), file, command.command, ...command.args], {
    ...command.options,
    detached: false
  })
}
