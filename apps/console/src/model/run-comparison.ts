import { canonicalJson, nodeDurations, type ErrorInfo, type RunEvent } from '@spindle/contracts';

/** What one run did at a node: its last execution's input and output, and how often it ran. */
export interface NodeSide {
  status: 'running' | 'completed' | 'failed';
  executions: number;
  input: unknown;
  output?: unknown;
  error?: ErrorInfo;
  /** The node's latest attempt's wall and working time (`nodeDurations`), once it has ended. */
  wallMs?: number;
  workingMs?: number;
}

export interface NodeComparison {
  nodeId: string;
  a?: NodeSide;
  b?: NodeSide;
  /**
   * The side that did not run the node because it is a fork of the other run, started from a
   * checkpoint after the node had completed there: its result came with the checkpoint's state.
   */
  inherited?: 'a' | 'b';
  /** What differs: ran in one run only (not inherited), ended otherwise, ran a different number of times, saw or wrote other values. */
  differs: { presence: boolean; status: boolean; executions: boolean; input: boolean; output: boolean };
}

export interface RunSide {
  runId: string;
  workflow?: { name: string; version: number };
  status: string;
  input: unknown;
  output?: unknown;
  error?: ErrorInfo;
  /** The checkpoint it was forked from, when it is a fork. */
  forkedFrom?: { runId: string; seq: number; checkpointId?: string };
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
    const inherited = inheritedSide(a, b, nodeId);
    return {
      nodeId,
      a: left,
      b: right,
      ...(inherited && { inherited }),
      differs: {
        presence: !both && !inherited,
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

interface RunSides {
  run: RunSide;
  nodes: Map<string, NodeSide>;
  /** The seq of each node's first completion. */
  firstCompleted: Map<string, number>;
}

/**
 * Which side inherited the node from the other: the side that never ran it is a fork of the
 * other run, from a checkpoint at or after the node's first completion there.
 */
function inheritedSide(a: RunSides, b: RunSides, nodeId: string): 'a' | 'b' | undefined {
  const inherits = (fork: RunSides, parent: RunSides) => {
    const from = fork.run.forkedFrom;
    const completed = parent.firstCompleted.get(nodeId);
    return !fork.nodes.has(nodeId) && from?.runId === parent.run.runId && completed !== undefined && completed <= from.seq;
  };
  return inherits(a, b) ? 'a' : inherits(b, a) ? 'b' : undefined;
}

function sidesOf(events: readonly RunEvent[]): RunSides {
  const run: RunSide = { runId: events[0]?.runId ?? '', status: 'queued', input: undefined };
  const nodes = new Map<string, NodeSide>();
  const firstCompleted = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'run.queued') {
      const { forkedFrom } = e.data;
      Object.assign(run, { workflow: e.data.workflow, input: e.data.input });
      if (forkedFrom) run.forkedFrom = { runId: forkedFrom.runId, seq: forkedFrom.seq, checkpointId: forkedFrom.checkpointId };
    } else if (e.type === 'run.completed') Object.assign(run, { status: 'completed', output: e.data.output });
    else if (e.type === 'run.failed') Object.assign(run, { status: 'failed', error: e.data.error });
    else if (e.type === 'run.canceled') run.status = 'canceled';
    else if (e.type === 'run.started' && run.status === 'queued') run.status = 'running';
    else if (e.nodeId === undefined) continue;
    else if (e.type === 'node.started')
      nodes.set(e.nodeId, { status: 'running', executions: (nodes.get(e.nodeId)?.executions ?? 0) + 1, input: e.data.input });
    else if (e.type === 'node.completed') {
      update(nodes, e.nodeId, { status: 'completed', output: e.data.output, ...endedTimes(events, e.nodeId, e.at) });
      if (!firstCompleted.has(e.nodeId)) firstCompleted.set(e.nodeId, e.seq);
    } else if (e.type === 'node.failed')
      update(nodes, e.nodeId, { status: 'failed', error: e.data.error, ...endedTimes(events, e.nodeId, e.at) });
  }
  return { run, nodes, firstCompleted };
}

/** A node that has just ended: its durations as the timeline and the trace give them. */
function endedTimes(events: readonly RunEvent[], nodeId: string, at: string): Pick<NodeSide, 'wallMs' | 'workingMs'> {
  const { wallMs, workingMs } = nodeDurations(events, nodeId, Date.parse(at));
  return { wallMs, workingMs };
}

function update(nodes: Map<string, NodeSide>, nodeId: string, fields: Partial<NodeSide>) {
  const side = nodes.get(nodeId);
  if (side) nodes.set(nodeId, { ...side, ...fields });
}
