/**
 * The live terminal: output text plus a spinner line with the elapsed time while the session waits for the
 * model or a tool. A pure reducer ({@link step}: state + event -> state and bytes to write), so tests can
 * drive it without a terminal.
 *
 * @since 0.1.0
 */
import type { Style } from "./Style.ts"

/**
 * What the live display is waiting for, shown next to the spinner; `undefined` hides it.
 *
 * @since 0.1.0
 * @category models
 */
export type Status = string | undefined

/**
 * @since 0.1.0
 * @category models
 */
export type Event =
  | { readonly _tag: "Write"; readonly text: string }
  | { readonly _tag: "Status"; readonly status: Status; readonly now: number }
  | { readonly _tag: "Tick"; readonly now: number }
  | { readonly _tag: "Pause" }
  | { readonly _tag: "Resume"; readonly now: number }
  | { readonly _tag: "End" }

/**
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly animate: boolean
  readonly atLineStart: boolean
  readonly spinnerShown: boolean
  readonly status: Status
  /** When the current status began (ms). */
  readonly since: number
  readonly frame: number
  readonly now: number
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const initial = (options: { readonly animate: boolean; readonly now: number }): State => ({
  animate: options.animate,
  atLineStart: true,
  spinnerShown: false,
  status: undefined,
  since: options.now,
  frame: 0,
  now: options.now
})

/**
 * The spinner's frames (braille dots, as most terminal tools use).
 *
 * @since 0.1.0
 * @category constants
 */
export const frames: ReadonlyArray<string> = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * `0.4s`, `12.0s`, `2m 05s`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatElapsed = (ms: number): string => {
  const seconds = Math.max(0, ms) / 1000
  if (seconds < 60) return `${seconds.toFixed(1)}s`
  const whole = Math.floor(seconds)
  return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`
}

/**
 * One spinner line, without a newline.
 *
 * @since 0.1.0
 * @category formatting
 */
export const spinnerLine = (state: State, style: Style): string =>
  `${style.cyan(frames[state.frame % frames.length]!)} ${state.status ?? ""} ${
    style.dim(`(${formatElapsed(state.now - state.since)})`)
  }`

const clearLine = "\r\x1b[2K"

const redraw = (state: State, style: Style): [State, string] =>
  state.animate && state.status !== undefined && state.atLineStart
    ? [{ ...state, spinnerShown: true }, clearLine + spinnerLine(state, style)]
    : [state, ""]

const erase = (state: State): [State, string] =>
  state.spinnerShown ? [{ ...state, spinnerShown: false }, clearLine] : [state, ""]

// The spinner only ever occupies a line of its own: drawn when the cursor is at the start of a line, erased
// (`\r` + clear line) before anything else is written, never drawn inside streamed text. Text for stderr
// goes between a `Pause` and a `Resume`, so it never lands on the spinner's line.

/**
 * Applies one event: returns the next state and the exact text to write to the terminal.
 *
 * @since 0.1.0
 * @category reducers
 */
export const step = (state: State, event: Event, style: Style): [State, string] => {
  switch (event._tag) {
    case "Write": {
      if (event.text === "") return [state, ""]
      const [erased, prefix] = erase(state)
      const written: State = { ...erased, atLineStart: event.text.endsWith("\n") }
      const [next, spinner] = redraw(written, style)
      return [next, prefix + event.text + spinner]
    }
    case "Status": {
      const changed = event.status !== state.status
      const updated: State = changed
        ? { ...state, status: event.status, since: event.now, now: event.now }
        : { ...state, now: event.now }
      if (event.status === undefined) return erase(updated)
      return changed ? redraw(updated, style) : [updated, ""]
    }
    case "Tick": {
      const ticked: State = { ...state, now: event.now, frame: state.frame + 1 }
      return ticked.spinnerShown || ticked.atLineStart ? redraw(ticked, style) : [ticked, ""]
    }
    case "Pause": {
      // On a terminal, other output shares the screen: free the spinner's line and end streamed text first.
      const [erased, prefix] = erase(state)
      return state.animate && !erased.atLineStart ? [{ ...erased, atLineStart: true }, prefix + "\n"] : [erased, prefix]
    }
    case "Resume":
      return redraw({ ...state, now: event.now }, style)
    case "End": {
      const [erased, prefix] = erase({ ...state, status: undefined })
      return [erased, prefix + (erased.atLineStart ? "" : "\n")]
    }
  }
}
