/**
 * A socket runner (`NodeClusterSocket.layer` with the storage the caller brings) whose socket server's writes end
 * once their socket has closed, so that a stopping runner's shutdown does not wait forever on one.
 *
 * Effect's Node socket never ends a write to a socket already destroyed: `conn.write` returns false and no `drain`,
 * `error` or `close` event follows, which its `awaitDrain` waits for (@effect/platform-node-shared
 * src/NodeSocket.ts, `write`, and `awaitDrain`); nor one made once its reader's scope closed, which waits for a
 * reconnection that a server's socket never makes (`latch.whenOpen` in `write`). The runner's RPC server writes
 * a handler's answer where it cannot be interrupted (effect src/rpc/RpcServer.ts, `makeNoSerialization`: the
 * handler's `onExit`, `sendDefect` among them), and its scope, closed before the sharding hands its shards over,
 * waits for every handler (`shutdownLatch`). A runner whose peer's connection broke as it answered (one woken from
 * a pause, its peers' connections gone meanwhile) stayed in its shutdown until the drain watchdog ended it: 4 of 10
 * SIGTERMed runners of a chaos run (issue 23); a fiber dump of one so stuck in a short run showed the server's
 * `sendDefect`, in a handler's `onExit`, parked on its socket's write.
 *
 * @internal
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SocketRunner from "effect/cluster/SocketRunner"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as Socket from "effect/socket/Socket"
import * as SocketServer from "effect/socket/SocketServer"

const closedError = () =>
  new Socket.SocketError({ reason: new Socket.SocketWriteError({ cause: new Error("the socket is closed") }) })

/**
 * `socket` whose writes fail once it closed: once its reader found it closed (a pull failed) or its reader's scope
 * closed. A write under way then ends too, failed.
 */
export const guard = (socket: Socket.Socket): Effect.Effect<Socket.Socket> =>
  Effect.map(Latch.make(false), (closed) => {
    const unlessClosed = (write: Effect.Effect<void, Socket.SocketError>) =>
      Effect.raceFirst(Effect.interruptible(write), Effect.andThen(closed.await, Effect.fail(closedError())))
    return Socket.make({
      reader: Effect.gen(function*() {
        // Added before the reader's own finalizer, so run after it: a write made in between waits for this.
        yield* Effect.addFinalizer(() => closed.open)
        const reader = yield* socket.reader
        return { ...reader, pull: Effect.tapError(reader.pull, () => closed.open) }
      }),
      writer: Effect.map(socket.writer, (writer) => ({
        write: (chunk) => unlessClosed(writer.write(chunk)),
        writeAll: (chunks) => unlessClosed(writer.writeAll(chunks))
      }))
    })
  })

/** The runner's socket server (from the sharding configuration's addresses), each socket guarded. */
export const layerSocketServer: Layer.Layer<SocketServer.SocketServer, SocketServer.SocketServerError, ShardingConfig.ShardingConfig> =
  Layer.effect(
    SocketServer.SocketServer,
    Effect.gen(function*() {
      const server = yield* SocketServer.SocketServer
      return SocketServer.SocketServer.of({
        address: server.address,
        run: (handler) => server.run((socket) => Effect.flatMap(guard(socket), handler))
      })
    })
  ).pipe(Layer.provide(NodeClusterSocket.layerSocketServer))

/**
 * `NodeClusterSocket.layer({ storage: "byo", serialization, shardingConfig })` for a runner (with a server), its
 * server's sockets guarded.
 */
export const layer = (options: {
  readonly serialization: "ndjson" | "binary"
  readonly shardingConfig: Partial<ShardingConfig.ShardingConfig["Service"]>
}) =>
  Layer.provide(SocketRunner.layer, [layerSocketServer, NodeClusterSocket.layerClientProtocol]).pipe(
    Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(NodeClusterSocket.layerClientProtocol))),
    Layer.provide(ShardingConfig.layerFromEnv(options.shardingConfig)),
    Layer.provide(options.serialization === "ndjson" ? RpcSerialization.layerNdjsonWith() : RpcSerialization.layerSchemaBinary())
  )
