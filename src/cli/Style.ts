/**
 * Terminal styling that switches itself off: colors only when the output can show them (a TTY, and
 * `NO_COLOR` unset), as `effect/cli`'s `TerminalCapabilities` decides.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"

/**
 * @since 0.1.0
 * @category models
 */
export interface Style {
  readonly enabled: boolean
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly red: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly cyan: (text: string) => string
  readonly magenta: (text: string) => string
}

const sgr = (open: number, close: number) => (text: string): string =>
  text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`

/**
 * ANSI styling.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ansi: Style = {
  enabled: true,
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
  magenta: sgr(35, 39)
}

const identity = (text: string): string => text

/**
 * No styling at all: what pipes, files, snapshots and `NO_COLOR` get.
 *
 * @since 0.1.0
 * @category constructors
 */
export const plain: Style = {
  enabled: false,
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
  magenta: identity
}

/**
 * The styling the current terminal supports.
 *
 * @since 0.1.0
 * @category constructors
 */
export const current: Effect.Effect<Style> = Effect.map(
  TerminalCapabilities.TerminalCapabilities,
  (caps) => caps.canColor ? ansi : plain
)

/**
 * Removes ANSI escape sequences (for measuring and for tests).
 *
 * @since 0.1.0
 * @category utils
 */
export const strip = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")

const escapes: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e" }

/**
 * Text from outside (a line of a file that is not stream-json, binary included) made safe to print: control,
 * format and unassigned characters become visible escapes (`\n`, `\e`, `\x00`, `\u{200b}`), so they can
 * neither move the cursor nor hide what was there.
 *
 * @since 0.1.0
 * @category utils
 */
export const printable = (text: string): string =>
  text.replace(/[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Zl}\p{Zp}]/gu, (c) => {
    const code = c.codePointAt(0)!
    return escapes[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`)
  })

/**
 * `text` with every character outside printable ASCII escaped (`\x07`, `\u{fffd}`): for text that is not
 * really text, such as a binary file's bytes.
 *
 * @since 0.1.0
 * @category formatting
 */
export const ascii = (text: string): string =>
  printable(text).replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
