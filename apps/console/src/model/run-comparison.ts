import { canonicalJson, type ErrorInfo, type RunEvent } from '@spindle/contracts';

/** What one run did at a node: its last execution's input and output, and how often it ran. */
export interface NodeSide {
  status: 'running' | 'completed' | 'failed';
  executions: number;
  input: unknown;
  output?: unknown;
  error?: ErrorInfo;
  durationMs?: number;
}

export interface NodeComparison {
  nodeId: string;
  a?: NodeSide;
  b?: NodeSide;
  /** What differs: ran in one run only, ended otherwise, ran a different number of times, saw or wrote other values. */
  differs: { presence: boolean; status: boolean; executions: boolean; input: boolean; output: boolean };
}

export interface RunSide {
  runId: string;
  workflow?: { name: string; version: number };
  status: string;
  input: unknown;
  output?: unknown;
  error?: ErrorInfo;
}

export interface RunComparison {
  a: RunSide;
  b: RunSide;
  differs: { input: boolean; output: boolean; status: boolean };
  /** Every node either run reached, in the order they were first reached (run A's first). */
  nodes: NodeComparison[];
}

/** Two runs side by side, node by node, from their logs alone. */
export function compareRuns(aEvents: readonly RunEvent[], bEvents: readonly RunEvent[]): RunComparison {
  const a = sidesOf(aEvents);
  const b = sidesOf(bEvents);
  const order = [...new Set([...a.nodes.keys(), ...b.nodes.keys()])];
  const same = (x: unknown, y: unknown) => canonicalJson(x ?? null) === canonicalJson(y ?? null);
  const nodes = order.map((nodeId): NodeComparison => {
    const left = a.nodes.get(nodeId);
    const right = b.nodes.get(nodeId);
    const both = left !== undefined && right !== undefined;
    return {
      nodeId,
      a: left,
      b: right,
      differs: {
        presence: !both,
        status: both && left.status !== right.status,
        executions: both && left.executions !== right.executions,
        input: both && !same(left.input, right.input),
        output: both && !same(left.output ?? left.error, right.output ?? right.error),
      },
    };
  });
  return {
    a: a.run,
    b: b.run,
    differs: { input: !same(a.run.input, b.run.input), output: !same(a.run.output, b.run.output), status: a.run.status !== b.run.status },
    nodes,
  };
}

/** Whether anything about the node differs between the runs. */
export const nodeDiffers = (n: NodeComparison) => Object.values(n.differs).some(Boolean);

function sidesOf(events: readonly RunEvent[]): { run: RunSide; nodes: Map<string, NodeSide> } {
  const run: RunSide = { runId: events[0]?.runId ?? '', status: 'queued', input: undefined };
  const nodes = new Map<string, NodeSide>();
  for (const e of events) {
    if (e.type === 'run.queued') Object.assign(run, { workflow: e.data.workflow, input: e.data.input });
    else if (e.type === 'run.completed') Object.assign(run, { status: 'completed', output: e.data.output });
    else if (e.type === 'run.failed') Object.assign(run, { status: 'failed', error: e.data.error });
    else if (e.type === 'run.canceled') run.status = 'canceled';
    else if (e.type === 'run.started' && run.status === 'queued') run.status = 'running';
    else if (e.nodeId === undefined) continue;
    else if (e.type === 'node.started')
      nodes.set(e.nodeId, { status: 'running', executions: (nodes.get(e.nodeId)?.executions ?? 0) + 1, input: e.data.input });
    else if (e.type === 'node.completed')
      update(nodes, e.nodeId, { status: 'completed', output: e.data.output, durationMs: e.data.durationMs });
    else if (e.type === 'node.failed') update(nodes, e.nodeId, { status: 'failed', error: e.data.error, durationMs: e.data.durationMs });
  }
  return { run, nodes };
}

function update(nodes: Map<string, NodeSide>, nodeId: string, fields: Partial<NodeSide>) {
  const side = nodes.get(nodeId);
  if (side) nodes.set(nodeId, { ...side, ...fields });
}
