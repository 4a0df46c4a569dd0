import type { WorkflowGraph } from '@spindle/client';

export interface PlacedNode {
  id: string;
  type: string;
  label: string;
  parent?: string;
  lane?: string;
  x: number;
  y: number;
  width: number;
  height: number;
  container: boolean;
  /** Lane titles of a container, with their y offsets. */
  lanes: Array<{ name: string; y: number }>;
}

const LEAF = { w: 170, h: 56 };
const GAP_X = 50;
const GAP_Y = 24;
const HEADER = 34;
const PAD = 14;

/**
 * Positions for every node: top-level nodes in columns by rank; a loop or fork is a box holding
 * its inner graph, one lane per branch (or the loop body), so parallel branches sit side by side
 * as swimlanes. Children are positioned relative to their container.
 */
export function layoutGraph(graph: WorkflowGraph): PlacedNode[] {
  const byParent = new Map<string, WorkflowGraph['nodes']>();
  for (const n of graph.nodes) byParent.set(n.parent ?? '', [...(byParent.get(n.parent ?? '') ?? []), n]);
  const placed = new Map<string, PlacedNode>();

  const size = (node: WorkflowGraph['nodes'][number]): { w: number; h: number } => {
    const inner = byParent.get(node.id);
    if (!inner?.length) return LEAF;
    const lanes = [...new Set(inner.map((n) => n.lane ?? 'body'))];
    let y = HEADER;
    let width = LEAF.w + 2 * PAD;
    const laneRows: Array<{ name: string; y: number }> = [];
    for (const lane of lanes) {
      const members = inner.filter((n) => (n.lane ?? 'body') === lane);
      const { width: w, height: h } = placeGrid(members, PAD + 70, y);
      laneRows.push({ name: lane, y });
      width = Math.max(width, w + 70 + 2 * PAD);
      y += h + GAP_Y / 2;
    }
    placed.set(node.id, { ...base(node), width, height: y + PAD, container: true, lanes: laneRows });
    return { w: width, h: y + PAD };
  };

  /** Lays nodes out in columns by rank from (x0, y0); returns the extent. */
  const placeGrid = (nodes: WorkflowGraph['nodes'], x0: number, y0: number) => {
    const sizes = new Map(nodes.map((n) => [n.id, size(n)]));
    const ranks = [...new Set(nodes.map((n) => n.rank))].sort((a, b) => a - b);
    let x = x0;
    let height = 0;
    for (const rank of ranks) {
      const column = nodes.filter((n) => n.rank === rank).sort((a, b) => a.order - b.order);
      const colWidth = Math.max(...column.map((n) => sizes.get(n.id)!.w));
      let y = y0;
      for (const n of column) {
        const s = sizes.get(n.id)!;
        const existing = placed.get(n.id);
        placed.set(n.id, { ...(existing ?? { ...base(n), container: false, lanes: [] }), x, y, width: s.w, height: s.h });
        y += s.h + GAP_Y;
      }
      height = Math.max(height, y - y0 - GAP_Y);
      x += colWidth + GAP_X;
    }
    return { width: x - x0 - GAP_X, height };
  };

  placeGrid(byParent.get('') ?? [], 0, 0);
  return graph.nodes.map((n) => placed.get(n.id)!).filter(Boolean);
}

function base(n: WorkflowGraph['nodes'][number]) {
  return { id: n.id, type: n.type, label: n.label, parent: n.parent, lane: n.lane, x: 0, y: 0, width: LEAF.w, height: LEAF.h };
}
