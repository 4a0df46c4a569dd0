import { SpindleError, type FieldIssue } from '@spindle/contracts';
import type { AgentCatalogRepository } from './agent-catalog.repository';

/**
 * Replaces `{ "ref": "<agent>" }` entries of a pattern (in `agents`, `manager`, `aggregator`) by
 * the agent's stored spec. Catalog definitions keep their references; a run embeds the resolved
 * definition, so it never changes under a running workflow. An unknown agent (in the tenant's
 * catalog) is refused, named.
 */
export async function resolveAgentRefs(agents: AgentCatalogRepository, tenant: string, definition: unknown): Promise<unknown> {
  if (!definition || typeof definition !== 'object' || (definition as { kind?: unknown }).kind === 'graph') return definition;
  const def = { ...(definition as Record<string, unknown>) };
  const issues: FieldIssue[] = [];
  const resolve = async (entry: unknown, field: string) => {
    const ref = (entry as { ref?: unknown } | null)?.ref;
    if (typeof ref !== 'string') return entry;
    const found = await agents.find(tenant, ref);
    if (!found) issues.push({ field: `${field}.ref`, message: `no agent named "${ref}" in the agent catalog` });
    return found?.spec ?? entry;
  };
  if (Array.isArray(def.agents)) def.agents = await Promise.all(def.agents.map((a, i) => resolve(a, `agents[${i}]`)));
  for (const key of ['manager', 'aggregator']) if (def[key] !== undefined) def[key] = await resolve(def[key], key);
  if (issues.length > 0)
    throw new SpindleError('invalid_definition', `invalid workflow definition: field ${issues[0].field}: ${issues[0].message}`, { issues });
  return def;
}
