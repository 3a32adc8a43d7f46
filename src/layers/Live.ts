/**
 * The real Claude Code CLI as the `ClaudeCli` service.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as Process from "./Process.ts"

/**
 * `ClaudeCli` running the real CLI through whatever `ChildProcessSpawner` is provided (tests provide a fake one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (config: Process.Config = {}): Layer.Layer<ClaudeCli.ClaudeCli, never, ChildProcessSpawner> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.map(Effect.service(ChildProcessSpawner), (spawner) => ClaudeCli.make(Process.lines(spawner, config)))
  )

/**
 * `ClaudeCli` running the real CLI on Node (`claude` on `PATH` unless `config.executable` says otherwise).
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi", { model: "sonnet" }).pipe(Stream.runCollect)
 * Effect.runPromise(program.pipe(Effect.provide(Live.layer({ executable: "/opt/claude" }))))
 * ```
 */
export const layer = (config: Process.Config = {}): Layer.Layer<ClaudeCli.ClaudeCli> =>
  layerWith(config).pipe(Layer.provide(Process.nodeSpawner))
