import type { ErrorInfo, RunStatus, Usage } from '@spindle/contracts';

export type NodeState = 'pending' | 'running' | 'completed' | 'failed' | 'waiting' | 'canceled';
/** `custom`, `usage`, `attempt`: what user code said while it ran, instants under its node or tool call. */
export type SpanKind =
  'run' | 'node' | 'branch' | 'model' | 'tool' | 'request' | 'context' | 'memory' | 'retrieval' | 'custom' | 'usage' | 'attempt';
export type SpanStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'canceled';
export type RunStatusView = RunStatus;

/** One span of the run as its events tell it, paired by `spanId + path`. */
export interface SpanView {
  key: string;
  spanId: string;
  parentKey?: string;
  kind: SpanKind;
  label: string;
  nodeId?: string;
  nodeType?: string;
  path: string;
  status: SpanStatus;
  startSeq: number;
  endSeq?: number;
  startMs: number;
  endMs?: number;
  input?: unknown;
  /** A node's output is the delta it wrote to state, not the whole state. */
  output?: unknown;
  error?: ErrorInfo;
  usage?: Usage;
  model?: string;
  iteration?: number;
  branchId?: string;
  /** 1 for a node's first execution, 2 for the second… */
  execution: number;
  depth: number;
  children: string[];
}

export interface OpenRequest {
  requestId: string;
  kind: 'input' | 'approval';
  nodeId?: string;
  prompt: string;
  seq: number;
}

export interface RunView {
  runId?: string;
  workflow?: { name: string; version: number };
  status: RunStatusView;
  /** In the order they started. */
  spans: SpanView[];
  byKey: Map<string, SpanView>;
  nodes: Map<string, { state: NodeState; executions: number }>;
  /** `from->to` edges the run went along. */
  traversed: Set<string>;
  requests: OpenRequest[];
  firstMs?: number;
  lastMs?: number;
  /** First to last event of the slice: the run's end-to-end latency so far. */
  latencyMs: number;
  usage: Usage;
  /** Keys of the spans from a failed leaf up to the run: the failure path. */
  failurePath: Set<string>;
  events: number;
}
