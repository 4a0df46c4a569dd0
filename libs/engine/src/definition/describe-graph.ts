import { entryNodeId } from './validate-definition';
import type { GraphDefinition, NodeType } from './workflow-definition.schema';

export interface GraphView {
  entry: string;
  nodes: Array<{ id: string; type: NodeType; label: string; rank: number; order: number }>;
  edges: Array<{ from: string; to: string; handle: string; back: boolean }>;
  /** The same graph as Mermaid flowchart text. */
  mermaid: string;
}

/**
 * A drawable view of a definition: layout hints (`rank` = layer from the entry along forward
 * edges, `order` = position within the layer; edges that close a cycle are marked `back`) and
 * Mermaid text. Pure: the console and docs draw from it.
 */
export function describeGraph(def: GraphDefinition): GraphView {
  const entry = entryNodeId(def);
  const outgoing = new Map<string, Array<{ to: string; handle: string }>>();
  for (const e of def.edges) outgoing.set(e.from, [...(outgoing.get(e.from) ?? []), { to: e.to, handle: e.handle ?? 'default' }]);

  // Depth-first from the entry: an edge to a node still on the stack is a back edge (a loop).
  const back = new Set<string>();
  const onStack = new Set<string>();
  const done = new Set<string>();
  const visit = (id: string) => {
    onStack.add(id);
    for (const { to, handle } of outgoing.get(id) ?? []) {
      if (onStack.has(to)) back.add(edgeKey(id, to, handle));
      else if (!done.has(to)) visit(to);
    }
    onStack.delete(id);
    done.add(id);
  };
  visit(entry);

  // Longest-path layering over forward edges.
  const rank = new Map<string, number>([[entry, 0]]);
  for (const id of topologicalOrder(def, outgoing, back, entry)) {
    for (const { to, handle } of outgoing.get(id) ?? []) {
      if (!back.has(edgeKey(id, to, handle))) rank.set(to, Math.max(rank.get(to) ?? 0, (rank.get(id) ?? 0) + 1));
    }
  }
  const perRank = new Map<number, number>();
  const nodes = def.nodes.map((n) => {
    const r = rank.get(n.id) ?? 0;
    const order = perRank.get(r) ?? 0;
    perRank.set(r, order + 1);
    return { id: n.id, type: n.type, label: n.label ?? n.id, rank: r, order };
  });
  const edges = def.edges.map((e) => {
    const handle = e.handle ?? 'default';
    return { from: e.from, to: e.to, handle, back: back.has(edgeKey(e.from, e.to, handle)) };
  });
  return { entry, nodes, edges, mermaid: toMermaid(nodes, edges) };
}

function topologicalOrder(def: GraphDefinition, outgoing: Map<string, Array<{ to: string; handle: string }>>, back: Set<string>, entry: string): string[] {
  const indegree = new Map(def.nodes.map((n) => [n.id, 0]));
  for (const [from, list] of outgoing) for (const { to, handle } of list) if (!back.has(edgeKey(from, to, handle))) indegree.set(to, (indegree.get(to) ?? 0) + 1);
  const queue = [entry, ...def.nodes.map((n) => n.id).filter((id) => id !== entry && indegree.get(id) === 0)];
  const order: string[] = [];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    order.push(id);
    for (const { to, handle } of outgoing.get(id) ?? []) {
      if (back.has(edgeKey(id, to, handle))) continue;
      indegree.set(to, (indegree.get(to) ?? 0) - 1);
      if (indegree.get(to) === 0) queue.push(to);
    }
  }
  return order;
}

const SHAPES: Record<NodeType, [string, string]> = {
  set: ['[', ']'],
  llm: ['([', '])'],
  agent: ['([', '])'],
  condition: ['{', '}'],
  router: ['{', '}'],
  function: ['[[', ']]'],
  tool: ['[[', ']]'],
  loop: ['[/', '/]'],
  subgraph: ['[[', ']]'],
  fork: ['[\\', '/]'],
  append: ['[(', ')]'],
  // A double circle: the run stops here.
  fail: ['(((', ')))'],
  // A hexagon: the run waits for a person here.
  human: ['{{', '}}'],
};

function toMermaid(nodes: GraphView['nodes'], edges: GraphView['edges']): string {
  const safe = (s: string) => s.replace(/"/g, '#quot;');
  const lines = ['flowchart TD'];
  for (const n of nodes) lines.push(`  ${n.id}${SHAPES[n.type][0]}"${safe(n.label)}<br/><small>${n.type}</small>"${SHAPES[n.type][1]}`);
  for (const e of edges) lines.push(`  ${e.from} ${e.back ? '-.->' : '-->'}${e.handle === 'default' ? '' : `|${safe(e.handle)}|`} ${e.to}`);
  return lines.join('\n');
}

function edgeKey(from: string, to: string, handle: string) {
  return `${from}\u0000${to}\u0000${handle}`;
}
