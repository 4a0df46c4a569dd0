import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { memo, useMemo } from 'react';
import type { WorkflowGraph } from '@spindle/client';
import { layoutGraph, type PlacedNode } from '../model/graph-layout';
import type { NodeState } from '../model/run-view';

export interface GraphOverlay {
  nodes: Map<string, { state: NodeState; executions: number }>;
  traversed: Set<string>;
  /** A running or waiting node's ticking label (`started 42 s ago · attempt 2`, `waiting 42 s`), by node id. */
  elapsed?: ReadonlyMap<string, string>;
}

type StepData = { placed: PlacedNode; state: NodeState; executions: number; selected: boolean; elapsed?: string };

const StepNode = memo(function StepNode({ data }: NodeProps<Node<StepData>>) {
  const { placed, state, executions, selected, elapsed } = data;
  return (
    <div
      className={`flow-node ${placed.container ? 'container' : ''} state-${state} ${selected ? 'selected' : ''}`}
      data-node-id={placed.id}
      data-state={state}
      style={{ width: placed.width, height: placed.height }}
    >
      <Handle type="target" position={Position.Left} />
      <div className="flow-node-title">
        <span className="node-type">{placed.type}</span> {placed.label}
        {executions > 1 && (
          <span className="badge" title="executions">
            ×{executions}
          </span>
        )}
        {state === 'waiting' && <span className="badge waiting">waiting</span>}
      </div>
      {elapsed && (
        <div className="node-elapsed" data-testid="node-elapsed">
          {elapsed}
        </div>
      )}
      {placed.lanes.map((lane) => (
        <div key={lane.name} className="lane-label" style={{ top: lane.y }}>
          {lane.name}
        </div>
      ))}
      <Handle type="source" position={Position.Right} />
    </div>
  );
});

const nodeTypes = { step: StepNode };

/** The workflow's graph; with an overlay, node states and traversed edges from the run's events. */
export function GraphPane({
  graph,
  overlay,
  selectedNode,
  onSelectNode,
}: {
  graph: WorkflowGraph;
  overlay?: GraphOverlay;
  selectedNode?: string;
  onSelectNode?: (id: string) => void;
}) {
  const placed = useMemo(() => layoutGraph(graph), [graph]);
  // Scrubbing re-derives the overlay every time; React Flow is only handed new nodes when a state changed.
  const nodeSignature = (id: string, n: { state: NodeState; executions: number }) =>
    `${id}:${n.state}:${n.executions}:${overlay?.elapsed?.get(id) ?? ''}`;
  const signature = overlay
    ? `${[...overlay.nodes].map(([id, n]) => nodeSignature(id, n)).join(',')}|${[...overlay.traversed].join(',')}`
    : '';
  const nodes = useMemo(() => stepNodes(placed, overlay, selectedNode), [placed, signature, selectedNode]);
  const edges = useMemo(() => stepEdges(graph, overlay), [graph, signature]);
  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      fitView
      fitViewOptions={{ maxZoom: 1 }}
      proOptions={{ hideAttribution: true }}
      onNodeClick={(_, n) => onSelectNode?.(n.id)}
      nodesConnectable={false}
      minZoom={0.2}
    >
      <Background />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}

function stepNodes(placed: PlacedNode[], overlay: GraphOverlay | undefined, selectedNode: string | undefined): Array<Node<StepData>> {
  return placed.map((p) => ({
    id: p.id,
    type: 'step',
    position: { x: p.x, y: p.y },
    ...(p.parent ? { parentId: p.parent, extent: 'parent' as const } : {}),
    data: {
      placed: p,
      state: overlay?.nodes.get(p.id)?.state ?? 'pending',
      executions: overlay?.nodes.get(p.id)?.executions ?? 0,
      selected: selectedNode === p.id,
      elapsed: overlay?.elapsed?.get(p.id),
    },
    style: { width: p.width, height: p.height },
    // The layout fixes each node's size. React Flow hides a node it has not measured, and a new
    // nodes array (every state change) resets what it measured: a state change that lands between
    // its measuring and the next render left a node hidden for good. Told the size, it never hides
    // one, and carries the measured handles over from one array to the next.
    measured: { width: p.width, height: p.height },
    draggable: false,
  }));
}

function stepEdges(graph: WorkflowGraph, overlay: GraphOverlay | undefined): Edge[] {
  return graph.edges.map((e) => {
    const walked = overlay?.traversed.has(`${e.from}->${e.to}`) ?? false;
    return {
      id: `${e.from}-${e.handle}-${e.to}`,
      source: e.from,
      target: e.to,
      label: e.handle === 'default' ? undefined : e.handle,
      animated: walked,
      className: walked ? 'walked' : '',
      style: { strokeDasharray: e.back ? '6 4' : undefined },
      markerEnd: { type: MarkerType.ArrowClosed },
    };
  });
}
