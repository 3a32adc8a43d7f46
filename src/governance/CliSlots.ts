/**
 * A cap on the CLIs alive at once in this process: each CLI takes a slot for its whole life, and one asked
 * for while every slot is taken waits in line (first come, first served) for at most `maxWait`, then fails
 * with `NoCliSlot`. Each CLI holds about 190 MB, so a runner that starts one per active session without a cap
 * falls over; the default cap is what half of the host's memory holds.
 *
 * The cap sits at the spawner: every process started through the `ChildProcessSpawner` it wraps takes a slot
 * (the library starts only CLIs through it), so queries, sessions, warm spares and entities all count, whatever
 * started them. Idle holders that can give their CLI back (a parked spare, an entity between turns) register with `evictable`; one who
 * waits makes the oldest of them close, before waiting.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { CliSlots } from "effect-claude-code/governance"
 * import { Live } from "effect-claude-code/layers"
 * import { Process } from "effect-claude-code/process"
 *
 * // At most 4 CLIs; a fifth waits up to 30 s for one to end.
 * const spawner = CliSlots.layer({ max: 4, maxWait: "30 seconds" }).pipe(Layer.provide(Process.nodeSpawner))
 * const claude = Live.layerWith({}).pipe(Layer.provide(spawner))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as os from "node:os"
import * as CliError from "../ClaudeCliError.ts"

// What one CLI process holds in memory, about (resident set of CLI 2.1.332 in a session).
const bytesPerCli = 190 * 1024 * 1024

/**
 * The default cap: the CLIs half of the host's memory holds, at least one.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMax = (): number => Math.max(1, Math.floor(os.totalmem() / 2 / bytesPerCli))

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default {@link defaultMax}. */
  readonly max?: number | undefined
  /** How long one waits for a slot before `NoCliSlot`. Default 60 seconds. */
  readonly maxWait?: Duration.Input | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  readonly max: number
  /** Takes a slot for the caller's Scope, waiting in line; `NoCliSlot` past `maxWait`. */
  readonly take: Effect.Effect<void, CliError.ClaudeCliError, Scope.Scope>
  /** Slots taken now. */
  readonly inUse: Effect.Effect<number>
  /**
   * Offers an idle CLI's slot back for the caller's Scope: when one waits, the oldest offer's `close` runs (it
   * must end its CLI). Closing the Scope withdraws the offer (the CLI is busy again, or gone).
   */
  readonly evictable: (close: Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category services
 */
export class CliSlots extends Context.Service<CliSlots, Shape>()("effect-claude-code/CliSlots") {}

interface Offer {
  readonly close: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Shape> =>
  Effect.gen(function*() {
    const max = Math.max(1, Math.floor(options.max ?? defaultMax()))
    const maxWait = Duration.fromInputUnsafe(options.maxWait ?? "60 seconds")
    const slots = yield* Semaphore.make(max)
    const taken = yield* Ref.make(0)
    // Oldest first.
    const offers = yield* Ref.make<ReadonlyArray<Offer>>([])
    const counted = Effect.acquireRelease(Ref.update(taken, (n) => n + 1), () => Ref.update(taken, (n) => n - 1))
    const evictOldest = Effect.flatMap(
      Ref.modify(offers, (all) => [all[0], all.slice(1)]),
      (oldest) => oldest === undefined ? Effect.void : Effect.forkDetach(oldest.close)
    )
    // The semaphore serves waiters first come, first served; a slot is released by the Scope it was taken for.
    const take: Shape["take"] = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        // Every slot taken: the oldest idle holder gives its CLI back, then this one waits in line.
        if ((yield* Ref.get(taken)) >= max) yield* evictOldest
        const started = Date.now()
        const got = yield* restore(Effect.timeoutOption(slots.takeScoped(1), maxWait))
        if (got._tag === "None") {
          return yield* Effect.fail(CliError.make(
            new CliError.NoCliSlot({ max, waitedMillis: Date.now() - started, option: "CliSlots maxWait" })
          ))
        }
        yield* counted
      })
    )
    const evictable: Shape["evictable"] = (close) =>
      Effect.acquireRelease(
        Effect.sync((): Offer => ({ close })).pipe(Effect.tap((offer) => Ref.update(offers, (all) => [...all, offer]))),
        (offer) => Ref.update(offers, (all) => all.filter((o) => o !== offer))
      ).pipe(Effect.asVoid)
    return { max, take, inUse: Ref.get(taken), evictable }
  })

// The spawner with the cap: each process it starts takes a slot for as long as it lives. A start that gets
// none fails with a `PlatformError` (`Busy`) whose cause is the `NoCliSlot` reason, which queries and sessions
// give as a `ClaudeCliError` (`NoCliSlot`).
const capped = (spawner: ChildProcessSpawner.ChildProcessSpawner["Service"], slots: Shape): ChildProcessSpawner.ChildProcessSpawner["Service"] =>
  ChildProcessSpawner.make((command) =>
    Effect.andThen(
      slots.take.pipe(Effect.mapError((cause) =>
        PlatformError.systemError({
          _tag: "Busy",
          module: "CliSlots",
          method: "spawn",
          description: cause.message,
          cause: cause.reason
        })
      )),
      spawner.spawn(command)
    )
  )

/**
 * The cap (`CliSlots`) and the spawner in context wrapped with it: each process it starts takes a slot for as long as it lives.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<CliSlots | ChildProcessSpawner.ChildProcessSpawner, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effectContext(Effect.gen(function*() {
    const slots = yield* make(options)
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    return Context.make(CliSlots, slots).pipe(Context.add(ChildProcessSpawner.ChildProcessSpawner, capped(spawner, slots)))
  }))
