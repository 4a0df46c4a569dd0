import type { Clock, FunctionRegistry, IdSource, ModelPort, RunLogPort, TokenSink, ToolPort } from '../ports';

/** Everything a run needs from outside the engine. */
export interface RunEnvironment {
  readonly runId: string;
  /** The run's root span (named in `run.queued`); nodes at the top level hang under it. */
  readonly rootSpanId: string;
  readonly log: RunLogPort;
  readonly model: ModelPort;
  readonly functions: FunctionRegistry;
  readonly tools: ToolPort;
  readonly tokens: TokenSink;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Aborted on cancel, run timeout, or when the runner loses the run. */
  readonly signal: AbortSignal;
  /** Upper bound on node executions in one run, so a cyclic graph cannot spin forever. */
  readonly maxSteps: number;
  /** How long a node that ignores its timeout signal may keep going before it is cut off. */
  readonly timeoutGraceMs?: number;
  /** Receives the full text of a redacted user-code error under its correlation id. */
  readonly reportRedacted: (correlationId: string, error: unknown) => void;
}
