import type { ErrorInfo } from '@spindle/contracts';
import type { NodeContainer } from '../definition/workflow-definition.schema';
import type { RunEnvironment } from './run-environment';
import type { RunScope } from './run-scope';
import type { RunState } from './state';

export interface NodePlacement {
  /** Path of the container the node runs in (`root`, `root/fork_1[a]`, `root/retry[2]`). */
  containerPath: string;
  parentSpanId: string;
  /** The enclosing loop's iteration, carried by every event inside it. */
  iteration?: number;
  /** The enclosing fork branch, carried by every event inside it. */
  branchId?: string;
}

export type GraphOutcome = { status: 'completed'; state: RunState } | { status: 'failed'; error: ErrorInfo; state: RunState };

/**
 * Walks a nested graph (a loop's body, a fork's branch, a subgraph) at a placement. Nodes that
 * contain graphs get it through their context rather than importing the interpreter, so the
 * interpreter and the executors it runs never import each other.
 */
export type GraphRunner = (
  graph: NodeContainer,
  initial: RunState,
  where: NodePlacement,
  env: RunEnvironment,
  scope: RunScope,
) => Promise<GraphOutcome>;
