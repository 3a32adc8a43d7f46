/**
 * A subagent's info from its metadata: the `.meta.json` the CLI writes beside its transcript, or the
 * `agent_metadata` entry a session store holds it as (the same object with a `type`).
 *
 * @internal
 */

/** @internal A `Sessions.SubagentInfo`. */
export const info = (agentId: string, subpath: string, meta: { readonly [key: string]: unknown }) => {
  const str = (key: string) => typeof meta[key] === "string" ? meta[key] as string : undefined
  return {
    agentId,
    subpath,
    agentType: str("agentType"),
    description: str("description"),
    toolUseId: str("toolUseId"),
    spawnDepth: typeof meta.spawnDepth === "number" ? meta.spawnDepth : undefined
  }
}
