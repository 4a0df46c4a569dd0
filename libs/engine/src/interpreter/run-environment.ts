import type {
  Clock,
  FunctionRegistry,
  IdSource,
  ModelPort,
  NodeResultStore,
  RetrieverPort,
  RunLogPort,
  TokenSink,
  ToolPort,
} from '../ports';
import type { RunHistory } from './run-history';
import type { CallRecording } from '../replay/call-recording';

/** Everything a run needs from outside the engine. */
export interface RunEnvironment {
  readonly runId: string;
  /** The run's root span (named in `run.queued`); nodes at the top level hang under it. */
  readonly rootSpanId: string;
  readonly log: RunLogPort;
  readonly model: ModelPort;
  readonly functions: FunctionRegistry;
  readonly tools: ToolPort;
  /** Knowledge bases and plugin retrievers; absent where the runner has none (a `retrieve` node then fails with `retrieval_failed`). */
  readonly retriever?: RetrieverPort;
  readonly tokens: TokenSink;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Aborted on cancel, run timeout, or when the runner loses the run. */
  readonly signal: AbortSignal;
  /** Upper bound on node executions in one run, so a cyclic graph cannot spin forever. */
  readonly maxSteps: number;
  /** How long a node that ignores its timeout signal may keep going before it is cut off. */
  readonly timeoutGraceMs?: number;
  /** What the run already did, when it is resumed: recorded steps are not repeated. */
  readonly history?: RunHistory;
  /** Aborted when the runner is shutting down: the run stops at its next checkpoint and is handed back. */
  readonly drain?: AbortSignal;
  /** Stored results of `checkpoint: true` nodes; absent where there is no store. */
  readonly results?: NodeResultStore;
  /** Runs whose stored node results this run may reuse besides its own (a fork's ancestry). */
  readonly cacheRuns?: readonly string[];
  /** A replay's recording: model and tool calls it has are answered from it, the others are the divergence. */
  readonly recording?: CallRecording;
  /** Receives the full text of a redacted user-code error under its correlation id. */
  readonly reportRedacted: (correlationId: string, error: unknown) => void;
}
