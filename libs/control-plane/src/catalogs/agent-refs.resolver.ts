import { SpindleError, type FieldIssue } from '@spindle/contracts';
import type { AgentCatalogRepository, StoredAgent } from './agent-catalog.repository';
import { chooseAgentVersion, type PinParameters } from './agent-pins';

type Agents = Pick<AgentCatalogRepository, 'find' | 'findVersion'>;

/**
 * Replaces `{ "ref": "<agent>", "version"?: … }` entries of a pattern (in `agents`, `manager`,
 * `aggregator`) by the stored spec of the version they pin (see agent-pins.ts), marked with the
 * agent and version it came from (`agent: { name, version }`, which the node's span shows).
 * Catalog definitions keep their references; a run embeds the resolved definition, so it never
 * changes under a running workflow, a resume included. An unknown agent, or a version it does not
 * have, is refused with the field named: at save, and again at run start (either can be deleted
 * in between). `runParameters` are the run's, when there is a run; without them a parameter's
 * default chooses.
 */
export async function resolveAgentRefs(
  agents: Agents,
  tenant: string,
  definition: unknown,
  runParameters?: Record<string, unknown>,
): Promise<unknown> {
  if (!definition || typeof definition !== 'object' || (definition as { kind?: unknown }).kind === 'graph') return definition;
  const def = { ...(definition as Record<string, unknown>) };
  const parameters: PinParameters = { schema: def.parameters, ...(runParameters ? { values: runParameters } : {}) };
  const issues: FieldIssue[] = [];
  const resolve = async (entries: unknown[], field: (i: number) => string) => {
    // Looked up at once, reported in the definition's order.
    const results = await Promise.all(entries.map((entry, i) => resolveEntry(agents, tenant, entry, field(i), parameters)));
    for (const r of results) if (r.issue) issues.push(r.issue);
    return results.map((r) => r.entry);
  };
  if (Array.isArray(def.agents)) def.agents = await resolve(def.agents, (i) => `agents[${i}]`);
  for (const key of ['manager', 'aggregator']) if (def[key] !== undefined) [def[key]] = await resolve([def[key]], () => key);
  if (issues.length > 0)
    throw new SpindleError('invalid_definition', `invalid workflow definition: field ${issues[0].field}: ${issues[0].message}`, { issues });
  return def;
}

/** One entry: a `{ ref }` as the stored spec of the version it pins, or what makes the pin unable to hold. */
async function resolveEntry(
  agents: Agents,
  tenant: string,
  entry: unknown,
  field: string,
  parameters: PinParameters,
): Promise<{ entry: unknown; issue?: FieldIssue }> {
  const ref = (entry as { ref?: unknown } | null)?.ref;
  if (typeof ref !== 'string') return { entry };
  const choice = chooseAgentVersion(entry as { version?: unknown }, field, parameters);
  if (!choice.ok) return { entry, issue: choice.issue };
  const found = choice.version === undefined ? await agents.find(tenant, ref) : await agents.findVersion(tenant, ref, choice.version);
  if (found) return { entry: pinned(found) };
  if (choice.version !== undefined && (await agents.find(tenant, ref))) {
    const from = choice.parameter ? ` (chosen by parameter "${choice.parameter}")` : '';
    return { entry, issue: { field: `${field}.version`, message: `agent "${ref}" has no version ${choice.version}${from}` } };
  }
  return { entry, issue: { field: `${field}.ref`, message: `no agent named "${ref}" in the agent catalog` } };
}

/** The stored spec, marked with the agent and version it is. */
const pinned = (found: StoredAgent) => ({ ...found.spec, agent: { name: found.name, version: found.version } });
