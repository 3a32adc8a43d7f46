/**
 * A process on a directory store's lock, for the lock tests: `hold <lock>` takes the lock and exits without
 * releasing it (a holder that died); `append <root> <projectKey> <sessionId> <uuid>` appends one entry within
 * 30 seconds and prints `stored`, or prints `timed out`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as DirectorySessionStore from "../../../src/store/DirectorySessionStore.ts"
import * as LockFile from "../../../src/store/internal/lockFile.ts"

const [mode, ...args] = process.argv.slice(2)

const program: Effect.Effect<void, unknown, FileSystem.FileSystem | Path.Path> = mode === "hold"
  ? Effect.gen(function*() {
    yield* LockFile.hold(yield* FileSystem.FileSystem, args[0])
    console.log(`held by ${process.pid}`)
    // Gone without its finalizers: the lock stays, naming this process.
    process.exit(0)
  }).pipe(Effect.scoped)
  : Effect.gen(function*() {
    const store = yield* DirectorySessionStore.make(args[0])
    const done = yield* store.append({ projectKey: args[1], sessionId: args[2] }, [{ type: "user", uuid: args[3] }]).pipe(
      Effect.timeoutOption("30 seconds")
    )
    console.log(Option.isSome(done) ? `stored by ${process.pid}` : "timed out")
  }).pipe(Effect.scoped)

Effect.runPromise(Effect.provide(program, NodeServices.layer)).catch((e) => {
  console.error(e)
  process.exit(1)
})
