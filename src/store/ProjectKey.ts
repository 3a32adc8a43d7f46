/**
 * Where the CLI keeps a project's sessions: `<config dir>/projects/<project key>/`, the key being the
 * project's absolute path with every character other than a letter or a digit replaced by `-` (longer keys
 * are cut at 200 characters and suffixed with a hash of the path, as the CLI and the SDK do).
 *
 * @since 0.1.0
 */

const maxLength = 200

// The CLI's portable djb2 variant: the same key under Bun and Node.
const djb2 = (text: string): number => {
  let hash = 0
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0
  return hash
}

/**
 * The project key of an absolute directory path.
 *
 * @example
 * ```ts
 * import { ProjectKey } from "effect-claude-code/store"
 * ProjectKey.fromPath("/home/ada/my.project") // "-home-ada-my-project"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPath = (path: string): string => {
  const key = path.replace(/[^a-zA-Z0-9]/g, "-")
  return key.length <= maxLength ? key : `${key.slice(0, maxLength)}-${Math.abs(djb2(path)).toString(36)}`
}

/**
 * Whether a string is a session id (a UUID): the CLI names transcript files by it.
 *
 * @since 0.1.0
 * @category guards
 */
export const isSessionId = (id: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
