/**
 * The hooks of a session as the CLI knows them: each callback under a generated id, listed in the
 * `initialize` request by event and matcher; a `hook_callback` request names the id.
 *
 * @internal
 */
import type * as Hooks from "../Hooks.ts"

/** The hooks as registered: the `initialize` payload and the callbacks by id. */
export interface Registration<R = never> {
  readonly wire: Record<string, ReadonlyArray<Record<string, unknown>>> | undefined
  readonly callbacks: ReadonlyMap<string, Hooks.HookCallback<R, any>>
}

/** Gives each hook a callback id, in the order of the events and matchers. */
export const register = <R>(hooks: Hooks.Hooks<R> | undefined): Registration<R> => {
  const callbacks = new Map<string, Hooks.HookCallback<R, any>>()
  const entries = Object.entries(hooks ?? {}) as Array<[Hooks.HookEvent, ReadonlyArray<Hooks.HookMatcher<R, any>>]>
  if (entries.length === 0) return { wire: undefined, callbacks }
  const wire = Object.fromEntries(entries.map(([event, matchers]) => [
    event,
    matchers.map((m) => ({
      ...(m.matcher === undefined ? {} : { matcher: m.matcher }),
      hookCallbackIds: m.hooks.map((hook) => {
        const id = `hook_${callbacks.size}`
        callbacks.set(id, hook)
        return id
      }),
      ...(m.timeout === undefined ? {} : { timeout: m.timeout }),
      ...(m.onFailure === undefined ? {} : { onFailure: m.onFailure })
    }))
  ]))
  return { wire, callbacks }
}
