import type { WorkflowGraph } from '@spindle/client';
import { useMemo, useState } from 'react';
import { agentGraph } from '../model/pattern-agents';
import { GraphPane, type GraphOverlay } from './GraphPane';
import { ModeToggle } from './ModeToggle';

/**
 * A workflow's graph; for a pattern, its agents and who passes to whom, with the compiled nodes
 * one click away.
 */
export function WorkflowGraphView(props: {
  graph: WorkflowGraph;
  /** The definition as stored (or as the run queued it). */
  definition?: unknown;
  overlay?: GraphOverlay;
  selectedNode?: string;
  onSelectNode?: (id: string) => void;
}) {
  const agents = useMemo(() => agentGraph(props.definition, props.graph.name, props.graph.version), [props.definition, props.graph]);
  const [compiled, setCompiled] = useState(false);
  const shown = agents && !compiled ? agents : props.graph;
  return (
    <div className="graph-view">
      {agents && (
        <ModeToggle
          label="graph view"
          className="graph-modes"
          modes={[
            ['agents', 'agents'],
            ['compiled', 'compiled nodes'],
          ]}
          value={compiled ? 'compiled' : 'agents'}
          onChange={(mode) => setCompiled(mode === 'compiled')}
        />
      )}
      <GraphPane
        key={shown === agents ? 'agents' : 'compiled'}
        graph={shown}
        overlay={props.overlay}
        selectedNode={props.selectedNode}
        onSelectNode={props.onSelectNode}
      />
    </div>
  );
}
