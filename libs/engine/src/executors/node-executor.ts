import type { ErrorCode } from '@spindle/contracts';
import type { NodeOf, NodeType } from '../definition/workflow-definition.schema';
import type { GraphRunner, NodePlacement } from '../interpreter/graph-runner';
import type { RunEnvironment } from '../interpreter/run-environment';
import type { RunState } from '../interpreter/state';
import type { RunScope } from '../interpreter/run-scope';
import type { UsageLedger } from '../interpreter/usage-ledger';
import type { NodeRecord } from '../interpreter/run-history';

/** What an executor gets besides its node: where it is in the run and the run's ports. */
export interface NodeContext {
  readonly env: RunEnvironment;
  readonly nodeId: string;
  /** This execution's span; child spans (model, tool calls) name it as parent. */
  readonly spanId: string;
  readonly path: string;
  /** Where the node runs; child events inherit its iteration and branch. */
  readonly placement: NodePlacement;
  /** `seq` of this execution's `node.started`. */
  readonly startedSeq: number;
  readonly state: RunState;
  readonly usage: UsageLedger;
  /** The run's shared budget and step count, for nodes that walk graphs of their own. */
  readonly scope: RunScope;
  /** Aborts on cancel, run timeout, or this node's own timeout: pass it to every call. */
  readonly signal: AbortSignal;
  /** The log's record of this execution when a resumed run re-enters it: what it already did. */
  readonly replay?: NodeRecord;
  /** The handles this node has edges for, so it can choose `rejected` or `timeout` only when wired. */
  readonly handles: ReadonlySet<string>;
  /** Walks a graph this node contains (a loop's body, a fork's branch, a subgraph). */
  readonly runGraph: GraphRunner;
}

export interface NodeOutcome {
  /** Top-level state keys the node writes. */
  delta: Record<string, unknown>;
  /** The edge handle to follow; `default` when absent. */
  handle?: string;
}

/**
 * One executor per node type. `prepare` renders what the node receives (recorded in
 * `node.started`, never the whole state); `execute` performs it. The node wrapper, not the
 * executor, emits the node's own start/end events.
 */
export interface NodeExecutor<T extends NodeType, Input = unknown> {
  /** Error code for a failure that is not already a Spindle error (e.g. user code throwing). */
  readonly failureCode: ErrorCode;
  prepare(node: NodeOf<T>, state: RunState): Input;
  execute(node: NodeOf<T>, input: Input, ctx: NodeContext): Promise<NodeOutcome>;
}

/** The iteration and branch a node's child events carry. */
export function placed(ctx: NodeContext): { iteration?: number; branchId?: string } {
  return {
    ...(ctx.placement.iteration !== undefined ? { iteration: ctx.placement.iteration } : {}),
    ...(ctx.placement.branchId !== undefined ? { branchId: ctx.placement.branchId } : {}),
  };
}
