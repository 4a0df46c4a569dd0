import type { GraphDefinition, NodeContainer, NodeType } from './workflow-definition.schema';

/** Where a nested node sits: inside `parent` (a loop or fork), in `lane` (`body`, or the fork's branch id). */
export interface NestedIn {
  parent?: string;
  lane?: string;
}

export interface GraphView {
  entry: string;
  /** Every node, nested ones (loop bodies, fork branches) included with `parent` and `lane`; rank and order are within their own graph. */
  nodes: Array<{ id: string; type: NodeType; label: string; rank: number; order: number } & NestedIn>;
  edges: Array<{ from: string; to: string; handle: string; back: boolean } & NestedIn>;
  /** The same graph as Mermaid flowchart text. */
  mermaid: string;
}

/**
 * A drawable view of a definition: layout hints (`rank` = layer from the entry along forward
 * edges, `order` = position within the layer; edges that close a cycle are marked `back`) and
 * Mermaid text. Pure: the console and docs draw from it.
 */
export function describeGraph(def: GraphDefinition): GraphView {
  const top = describeContainer(def, {});
  const nodes: GraphView['nodes'] = [...top.nodes];
  const edges: GraphView['edges'] = [...top.edges];
  const nest = (container: NodeContainer) => {
    for (const n of container.nodes) {
      const inner: Array<[string, NodeContainer]> =
        n.type === 'loop' ? [['body', n.body]] : n.type === 'fork' ? Object.entries(n.branches) : [];
      for (const [lane, graph] of inner) {
        const described = describeContainer(graph, { parent: n.id, lane });
        nodes.push(...described.nodes);
        edges.push(...described.edges);
        nest(graph);
      }
    }
  };
  nest(def);
  return { entry: top.entry, nodes, edges, mermaid: toMermaid(top.nodes, top.edges) };
}

function describeContainer(def: NodeContainer, where: NestedIn): Pick<GraphView, 'entry' | 'nodes' | 'edges'> {
  const entry = def.entry ?? def.nodes[0].id;
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
    return { id: n.id, type: n.type, label: n.label ?? n.id, rank: r, order, ...where };
  });
  const edges = def.edges.map((e) => {
    const handle = e.handle ?? 'default';
    return { from: e.from, to: e.to, handle, back: back.has(edgeKey(e.from, e.to, handle)), ...where };
  });
  return { entry, nodes, edges };
}

function topologicalOrder(
  def: NodeContainer,
  outgoing: Map<string, Array<{ to: string; handle: string }>>,
  back: Set<string>,
  entry: string,
): string[] {
  const indegree = new Map(def.nodes.map((n) => [n.id, 0]));
  for (const [from, list] of outgoing)
    for (const { to, handle } of list) if (!back.has(edgeKey(from, to, handle))) indegree.set(to, (indegree.get(to) ?? 0) + 1);
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
  // A cylinder: it reads a store.
  retrieve: ['[(', ')]'],
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
