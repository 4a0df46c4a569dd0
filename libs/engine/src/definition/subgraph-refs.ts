import { toGraph } from '../patterns/compile-pattern';
import type { NodeContainer, WorkflowDefinition } from './workflow-definition.schema';

/** Every subgraph a definition calls, nested graphs included, with where it is called from. */
export function subgraphRefs(def: WorkflowDefinition): Array<{ node: string; workflow: string; version?: number }> {
  const refs: Array<{ node: string; workflow: string; version?: number }> = [];
  const walk = (graph: NodeContainer) => {
    for (const node of graph.nodes) {
      if (node.type === 'subgraph')
        refs.push({ node: node.id, workflow: node.workflow, ...(node.version ? { version: node.version } : {}) });
      if (node.type === 'loop') walk(node.body);
      if (node.type === 'fork') Object.values(node.branches).forEach(walk);
    }
  };
  walk(toGraph(def));
  return refs;
}

/** How a run names a subgraph it embeds: `name` (the latest when queued) or `name@version`. */
export const subgraphRef = (workflow: string, version?: number) => (version ? `${workflow}@${version}` : workflow);
