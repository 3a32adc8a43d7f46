/**
 * Spawning processes that end with their run and with the host: Node's `ChildProcessSpawner`, guarded (see
 * `guard` in this module for how). Queries, sessions, the test kit's layers and the bin all start the CLI through it.
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { ChildProcessSpawner as Spawner } from "effect/process/ChildProcessSpawner"
import { peek } from "../stream/internal/peek.ts"
import * as Group from "./internal/group.ts"
import * as Guard from "./internal/guard.ts"

/**
 * How long the host-death guard (see {@link guard}) waits between SIGTERM and SIGKILL to a CLI's process
 * group once the host process has died: 2 seconds. The whole group is gone by then.
 *
 * @since 0.1.0
 * @category constants
 */
export const guardGracePeriod: Duration.Duration = Duration.seconds(2)

/**
 * A spawner whose processes, and everything they start, end with their run and with the host. Each process it
 * starts (a CLI, for queries and sessions alike) is the leader of its own group: in the host's session where
 * `perl` is at hand and the host has no controlling terminal (see `internal/group.ts`), else in a session of
 * its own (`setsid`). Its descendants (the CLI runs its tools in sessions of their own, `setsid`) are recorded
 * from the process table whenever its stdout has news and once more when its scope closes. When the scope closes (a normal end, an error, an interruption, a
 * signal to the bin), the process's group and every descendant recorded get SIGTERM, then SIGKILL after the
 * command's `forceKillAfter` (default {@link guardGracePeriod}), and the scope waits until they are gone.
 *
 * Each process is also watched by a small `/bin/sh` process holding a pipe from the host: when the host dies
 * (SIGKILL, SIGHUP, SIGQUIT, a crash: the kernel closes its end of the pipe), the watcher ends the group,
 * the recorded descendants and those still under the process, with the groups they lead: SIGTERM, then
 * SIGKILL after {@link guardGracePeriod}.
 *
 * Descendants are found by walking the process table from the process, which works only while the chain of
 * parents from them to it exists; on Linux also by a marker variable (`EFFECT_CLAUDE_CODE_RUN`) the process
 * gets in its environment and its descendants inherit, which finds them at the run's end whatever became of
 * their parents. Limits: elsewhere than Linux, and on Linux for one that cleared its environment, a
 * descendant that left the chain (its parent exited) before it was ever recorded, such as a daemon a tool
 * started between two messages, is not reached; on host death the watcher has only the walk and what was
 * recorded. Needs `/bin/sh`, `ps` and `awk` (and `/proc` on Linux); no native module; on Windows the spawner
 * is returned as it is. {@link nodeSpawner} is guarded.
 */
const guard = (spawner: Spawner["Service"]): Spawner["Service"] =>
  process.platform === "win32" ? spawner : ChildProcessSpawner.make((command) => {
    const marker = Guard.nextMarker()
    const marked = ChildProcess.setEnv(command, { [Guard.runMarker]: marker })
    return Effect.flatMap(spawner.spawn(Group.inOwnGroup(marked)), (handle) =>
      Effect.gen(function*() {
        const watcher = Guard.start(handle.pid, guardGracePeriod)
        const recorded = Guard.recorder(handle.pid, watcher, marker)
        const forceKillAfter = command._tag === "StandardCommand" ? command.options.forceKillAfter : undefined
        const grace = forceKillAfter === undefined ? guardGracePeriod : Duration.fromInputUnsafe(forceKillAfter)
        // Before the spawner's own release (finalizers run last added first): the CLI may still run, and
        // the look then sees all of its tree.
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            recorded.stop()
            recorded.look()
            recorded.tracker.lookMarked()
            return Effect.andThen(
              Guard.endRun(handle.pid, recorded.tracker, grace),
              watcher === undefined ? Effect.void : Guard.stop(watcher)
            )
          })
        )
        return ChildProcessSpawner.makeHandle({
          ...handle,
          stdout: peek<Uint8Array>(recorded.news)(handle.stdout)
        })
      }))
  })

/**
 * Node's `ChildProcessSpawner` with the file system and path services it needs, guarded (see {@link guard}):
 * every process it starts, and every descendant of it, ends with its run (the scope that started it) and when
 * the host process dies, however it dies. `Live.layer` runs on it; provide it to `Session.make` so that
 * sessions end as the layer's runs do.
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Process } from "effect-claude-code/process"
 * import { Session } from "effect-claude-code/session"
 *
 * const program = Effect.scoped(Effect.flatMap(Session.make(), (session) => session.send("hi")))
 * Effect.runPromise(program.pipe(Effect.provide(Process.nodeSpawner)))
 * ```
 */
export const nodeSpawner: Layer.Layer<Spawner> = Layer.effect(
  ChildProcessSpawner.ChildProcessSpawner,
  ChildProcessSpawner.ChildProcessSpawner.useSync(guard)
).pipe(
  Layer.provide(NodeChildProcessSpawner.layer),
  Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
)
