/**
 * A runner's sharding, once it starts shutting down, unregisters its own runner and then, while its entities
 * drain, warns at each refresh that no runner is healthy: about its own departure. {@link layer} drops that
 * warning once the sharding is shut down, and passes every other log on to the loggers the layer was built with.
 *
 * @internal
 */
import * as Sharding from "effect/cluster/Sharding"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

const noHealthyRunners = "No healthy runners available"

const isNoHealthyRunners = (message: unknown): boolean =>
  Array.isArray(message) ? message.includes(noHealthyRunners) : message === noHealthyRunners

/** `runner` whose own-departure warning is dropped once its sharding is shut down. */
export const layer = <A, E, R>(
  runner: Layer.Layer<A | Sharding.Sharding, E, R>
): Layer.Layer<A | Sharding.Sharding, E, R> =>
  Layer.unwrap(Effect.gen(function*() {
    // The sharding's own flag, once it is built (the loggers are needed while it is built).
    let isShutdown: Effect.Effect<boolean> = Effect.succeed(false)
    const loggers = yield* Logger.CurrentLoggers
    const quiet = new Set([...loggers].map((logger) =>
      Logger.make<unknown, unknown>((options) =>
        isNoHealthyRunners(options.message) && Effect.runSync(isShutdown) ? undefined : logger.log(options)
      )
    ))
    const watch = Layer.effectDiscard(Effect.map(Sharding.Sharding, (sharding) => (isShutdown = sharding.isShutdown)))
    return watch.pipe(
      Layer.provideMerge(runner),
      Layer.provide(Layer.succeed(Logger.CurrentLoggers, quiet))
    )
  }))
