import type { Context, Tracer } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import type { FunctionRegistry, ModelPort, NodeResultStore, ToolPort } from '@spindle/engine';
import type { Logger } from 'pino';
import type { McpPolicy } from '../mcp/mcp-policy';
import type { PluginRetrievers } from '../plugins/plugin-retrievers';
import type { RunnerMetrics } from '../runner.metrics';
import type { StepSlots } from './step-slots';

export interface RunExecutorDeps {
  bus: Bus;
  model: ModelPort;
  functions: FunctionRegistry;
  tools: ToolPort;
  /** Plugin retrievers by name; a `retrieve` node naming none of them searches the tenant's knowledge base. */
  retrievers?: PluginRetrievers;
  tracer: Tracer;
  logger: Logger;
  workerId: string;
  runTimeoutMs: number;
  /** Events larger than this keep their data in the object store. */
  maxEventBytes?: number;
  /** A definition may lengthen its run timeout up to this. */
  runTimeoutCeilingMs: number;
  maxSteps: number;
  /** Which MCP servers agent nodes may start or reach (`SPINDLE_MCP_ALLOW`). */
  mcpPolicy: McpPolicy;
  /** The `fetch` of MCP clients: the egress guard's, which refuses internal targets at connect (`SPINDLE_EGRESS_ALLOWED_HOSTS`). */
  egressFetch: typeof fetch;
  /** Executions of one run (first plus resumes after lost runners) before it closes `interrupted`. */
  maxAttempts: number;
  /** Stored results of `checkpoint: true` nodes (the checkpoint service). */
  results?: NodeResultStore;
  /** A run's log may not grow beyond this many bytes (`SPINDLE_MAX_RUN_LOG_BYTES`). */
  maxLogBytes?: number;
  /** How long an append NATS does not answer is retried before the run is handed back. */
  busRetryMs?: number;
  /** Runs of this process stepping at once (`RUNNER_STEP_SLOTS`); absent: no limit. */
  slots?: StepSlots;
  /** What the runner counts at `/metrics`; absent in tests that do not look. */
  metrics?: RunnerMetrics;
  /** Exported model and tool spans carry what was said (opt-in, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureGenAiContent?: boolean;
}

/**
 * What the consumer does with the command: `done`/`ignored` acknowledge it; `lost` leaves it to
 * the runner that owns the run; `requeued` acknowledges it (a fresh resume command was queued
 * after `run.yielded`); `handed_back` and `bus_unavailable` redeliver it (the next runner resumes
 * the run from its log); `deadLetter` moves it to the dead-letter stream with the reason.
 */
export type CommandResult = 'done' | 'lost' | 'ignored' | 'requeued' | 'handed_back' | 'bus_unavailable' | { deadLetter: string };

export interface CommandDelivery {
  /** How many times the command was delivered: more than once after a lost runner. */
  attempt: number;
  parent: Context;
  /** Aborted when the runner starts draining: runs stop at their next checkpoint. */
  drain?: AbortSignal;
}
