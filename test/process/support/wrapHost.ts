/**
 * A host that starts `sleep 60` as the CLI's spawn does (through `Group.inOwnGroup`), without the guard's
 * watcher, writes its pid and waits: test/process/Process.test.ts SIGKILLs it and looks at what is left.
 */
import * as ChildProcess from "effect/process/ChildProcess"
import * as childProcess from "node:child_process"
import * as Group from "../../../src/process/internal/group.ts"

const command = Group.inOwnGroup(ChildProcess.make("/bin/sleep", ["60"])) as ChildProcess.StandardCommand
const child = childProcess.spawn(command.command, command.args.map(String), { stdio: "ignore" })
child.on("spawn", () => process.stdout.write(`${child.pid}\n`))
setInterval(() => {}, 1000)
