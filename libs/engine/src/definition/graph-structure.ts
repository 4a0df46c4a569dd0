import { canonicalJson } from '@spindle/contracts';
import { sha256Hex } from '../hashing/sha256';
import { toGraph } from '../patterns/compile-pattern';
import type { NodeContainer, WorkflowDefinition, WorkflowNode } from './workflow-definition.schema';

/**
 * Hash of a definition's structure: node ids and types, edges, and the same for every nested
 * graph (loop bodies, fork branches). Prompts, models and settings are not structure, so a
 * version that only changes them may resume a run that started on another.
 */
export function graphStructureHash(definition: WorkflowDefinition): string {
  return sha256Hex(canonicalJson(structureOf(toGraph(definition)))).slice(0, 32);
}

function structureOf(graph: NodeContainer): unknown {
  return {
    entry: graph.entry ?? graph.nodes[0].id,
    nodes: graph.nodes.map(nodeStructure),
    edges: graph.edges.map((e) => [e.from, e.handle ?? 'default', e.to]).sort(),
  };
}

function nodeStructure(node: WorkflowNode): unknown {
  if (node.type === 'loop') return [node.id, node.type, structureOf(node.body)];
  if (node.type === 'fork')
    return [node.id, node.type, Object.fromEntries(Object.entries(node.branches).map(([id, g]) => [id, structureOf(g)]))];
  return [node.id, node.type];
}
