/**
 * The runner's socket server ends a write to a socket that has closed, where Effect's Node socket waits forever
 * (a stopping runner's shutdown waited on such a write, issue 23): a socket its peer reset, and one whose reader
 * is done. Counted from outside: the peer is a plain `node:net` client.
 */
import { assert, describe, it } from "@effect/vitest"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Socket from "effect/socket/Socket"
import * as SocketServer from "effect/socket/SocketServer"
import * as net from "node:net"
import * as RunnerSocket from "../../src/cluster/internal/runnerSocket.ts"

const server = RunnerSocket.layerSocketServer.pipe(
  Layer.provide(ShardingConfig.layer({ runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", 0)) }))
)

// Far longer than a failed write takes; a write that never ends is the defect.
const bound = "20 seconds"

// How a write the server makes once `closing` is done with the socket ends, the peer doing `peer` once connected.
const lateWrite = (closing: (socket: Socket.Socket) => Effect.Effect<void, unknown, never>, peer: (client: net.Socket) => void) =>
  Effect.gen(function*() {
    const sockets = yield* SocketServer.SocketServer
    const ended = yield* Deferred.make<Exit.Exit<void, Socket.SocketError>>()
    yield* sockets.run((socket) =>
      Effect.scoped(Effect.gen(function*() {
        const writer = yield* socket.writer
        yield* Effect.ignore(closing(socket))
        yield* Deferred.succeed(ended, yield* Effect.exit(writer.write("late")))
      }))
    ).pipe(Effect.forkScoped)
    const port = "port" in sockets.address ? sockets.address.port : 0
    const client = net.connect(port, "127.0.0.1", () => peer(client))
    client.on("error", () => {})
    yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))
    return yield* Deferred.await(ended).pipe(Effect.timeoutOption(bound))
  }).pipe(Effect.scoped, Effect.provide(server))

describe("RunnerSocket", () => {
  it.live("a write to a socket its peer reset fails", () =>
    Effect.gen(function*() {
      // The reader finds the socket closed (the reset); the write comes after.
      const pullUntilClosed = (socket: Socket.Socket) =>
        Effect.scoped(Effect.flatMap(socket.reader, (reader) => Effect.forever(reader.pull)))
      const ended = yield* lateWrite(pullUntilClosed, (client) => client.resetAndDestroy())
      assert.isTrue(Option.isSome(ended), "the write ends")
      assert.isTrue(Exit.isFailure(Option.getOrThrow(ended)))
    }))

  it.live("a write once the socket's reader is done fails", () =>
    Effect.gen(function*() {
      // The peer stays; the server is done reading.
      const readOnce = (socket: Socket.Socket) => Effect.scoped(Effect.asVoid(socket.reader))
      const ended = yield* lateWrite(readOnce, () => {})
      assert.isTrue(Option.isSome(ended), "the write ends")
      assert.isTrue(Exit.isFailure(Option.getOrThrow(ended)))
    }))
})
