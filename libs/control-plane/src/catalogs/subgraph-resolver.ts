import { SpindleError } from '@spindle/contracts';
import { subgraphRef, subgraphRefs, validateDefinition, type WorkflowDefinition } from '@spindle/engine';
import type { WorkflowCatalogRepository } from './workflow-catalog.repository';

const MAX_DEPTH = 8;

export type EmbeddedSubgraphs = Record<string, { version: number; definition: WorkflowDefinition }>;

/**
 * Resolves the catalog workflows a definition calls, and the ones they call, into the map a run
 * embeds in `run.queued`: the run then never depends on the catalog changing under it. A missing
 * workflow or version, or a cycle, is refused naming the calling node.
 */
export async function resolveSubgraphs(
  catalog: WorkflowCatalogRepository,
  tenant: string,
  root: { name: string; definition: WorkflowDefinition },
  /** Turns a stored definition into a runnable one (agent references resolved). */
  prepare: (stored: unknown) => Promise<unknown> = async (stored) => stored,
): Promise<EmbeddedSubgraphs> {
  // Keyed by user-chosen names: no prototype, so a name can only find what was put under it.
  const resolved: EmbeddedSubgraphs = Object.create(null);
  const visit = async (definition: WorkflowDefinition, chain: string[]) => {
    for (const ref of subgraphRefs(definition)) {
      const key = subgraphRef(ref.workflow, ref.version);
      if (chain.includes(ref.workflow))
        throw refused(ref.node, `calls "${ref.workflow}", which is already running higher up (${[...chain, ref.workflow].join(' → ')})`);
      if (chain.length >= MAX_DEPTH) throw refused(ref.node, `subgraphs nest deeper than ${MAX_DEPTH}`);
      if (resolved[key]) continue;
      const found = await catalog.find(tenant, ref.workflow, ref.version);
      if (!found)
        throw refused(ref.node, `calls workflow "${ref.workflow}"${ref.version ? ` version ${ref.version}` : ''}, which does not exist`);
      const child = validateDefinition(await prepare(found.definition));
      resolved[key] = { version: found.version, definition: child };
      await visit(child, [...chain, ref.workflow]);
    }
  };
  await visit(root.definition, [root.name]);
  return resolved;
}

function refused(node: string, message: string): SpindleError {
  return new SpindleError('invalid_definition', `node "${node}" ${message}`, { issues: [{ field: 'workflow', node, message }] });
}
