/**
 * Layers providing the `ClaudeCli` service: the real CLI, recordings, fixtures, the scripted server. The
 * issue's names are here too: `layer`, `layerFixture`, `layerScripted`, `layerRecording`.
 *
 * @since 0.1.0
 */
import * as Fixture_ from "./Fixture.ts"
import * as Live_ from "./Live.ts"
import * as Recording_ from "./Recording.ts"
import * as Scripted_ from "./Scripted.ts"

/**
 * @since 0.1.0
 */
export * as Fixture from "./Fixture.ts"

/**
 * @since 0.1.0
 */
export * as Live from "./Live.ts"

/**
 * @since 0.1.0
 */
export * as Process from "../Process.ts"

/**
 * @since 0.1.0
 */
export * as Recording from "./Recording.ts"

/**
 * @since 0.1.0
 */
export * as Scripted from "./Scripted.ts"

/**
 * @since 0.1.0
 */
export * as Telemetry from "../Telemetry.ts"

/**
 * The real CLI (`Live.layer`).
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import * as Layers from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi").pipe(Stream.runCollect, Effect.provide(Layers.layer()))
 * ```
 */
export const layer: typeof Live_.layer = Live_.layer

/**
 * A recording replayed through the same decoder (`Fixture.layer`); swap it for {@link layer} in a test.
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import * as Layers from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi").pipe(Stream.runCollect, Effect.provide(Layers.layerFixture("hi.jsonl")))
 * ```
 */
export const layerFixture: typeof Fixture_.layer = Fixture_.layer

/**
 * The real CLI against the test kit's scripted model server (`Scripted.layer`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerScripted: typeof Scripted_.layer = Scripted_.layer

/**
 * Records every run of a `ClaudeCli` layer to a file `layerFixture` replays (`Recording.layer`).
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import * as Layers from "effect-claude-code/layers"
 *
 * const recorded = Layers.layer().pipe(Layers.layerRecording("run.jsonl"))
 * ```
 */
export const layerRecording: typeof Recording_.layer = Recording_.layer
