import { isTerminalEvent, onRunEvent, type RunEvent, type RunEventHandlers, type Usage } from '@spindle/contracts';
import { boundedLabel } from '@spindle/telemetry';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Distinct workflow, model, tool and node-type names a label keeps before folding the rest into `_other`. */
const MAX_NAMES = 200;
/** Runs whose workflow is remembered between `run.queued` and their end. */
const MAX_REMEMBERED_RUNS = 50_000;

/** Where a run's workflow name comes from when its `run.queued` was folded before this process started. */
export type WorkflowLookup = (runIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;

const RUN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 14_400];
const STEP_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * What the runs themselves did, as Prometheus series: runs by workflow and outcome, run and node
 * durations, model calls with tokens (by kind) and cost, tool calls and failures. Fed the events a
 * projection committed for the first time, so a redelivery never counts twice and the figures are
 * the log's own, the same the trace shows. No run id is ever a label.
 */
export class RunActivityMetrics {
  private readonly workflow = boundedLabel(MAX_NAMES);
  private readonly model = boundedLabel(MAX_NAMES);
  private readonly tool = boundedLabel(MAX_NAMES);
  /** Functions and tools whose code reported spending or failed a try. */
  private readonly userCode = boundedLabel(MAX_NAMES);
  private readonly nodeType = boundedLabel(MAX_NAMES);
  private readonly workflowOfRun = new Map<string, string>();
  private readonly runsQueued: Counter<'workflow'>;
  private readonly runsEnded: Counter<'workflow' | 'status' | 'error_code'>;
  private readonly runDuration: Histogram<'workflow' | 'status'>;
  private readonly nodeDuration: Histogram<'node_type' | 'status'>;
  private readonly modelCalls: Counter<'model' | 'status' | 'error_code'>;
  private readonly modelDuration: Histogram<'model'>;
  private readonly tokens: Counter<'model' | 'kind'>;
  private readonly cost: Counter<'model'>;
  private readonly unpriced: Counter<'model'>;
  private readonly reportedCost: Counter<'kind' | 'name'>;
  private readonly failedAttempts: Counter<'kind' | 'name' | 'error_code'>;
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly toolDuration: Histogram<'tool'>;
  private readonly requests: Counter<'kind'>;

  constructor(
    registry: Registry,
    private readonly lookup: WorkflowLookup,
  ) {
    const registers = [registry];
    this.runsQueued = new Counter({
      name: 'spindle_runs_queued_total',
      help: 'Runs accepted (run.queued), by workflow.',
      labelNames: ['workflow'],
      registers,
    });
    this.runsEnded = new Counter({
      name: 'spindle_runs_ended_total',
      help: 'Runs that reached a terminal event, by workflow, status (completed, failed, canceled) and error code (none unless failed).',
      labelNames: ['workflow', 'status', 'error_code'],
      registers,
    });
    this.runDuration = new Histogram({
      name: 'spindle_run_duration_seconds',
      help: "A run's duration as its terminal event records it (queued to end, waits for people included).",
      labelNames: ['workflow', 'status'],
      buckets: RUN_BUCKETS,
      registers,
    });
    this.nodeDuration = new Histogram({
      name: 'spindle_node_duration_seconds',
      help: 'Node executions by node type and status (completed, failed).',
      labelNames: ['node_type', 'status'],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.modelCalls = new Counter({
      name: 'spindle_model_calls_total',
      help: 'Model calls by model and status (completed, failed), with the error code of a failed one.',
      labelNames: ['model', 'status', 'error_code'],
      registers,
    });
    this.modelDuration = new Histogram({
      name: 'spindle_model_call_duration_seconds',
      help: 'Model calls that completed, by model.',
      labelNames: ['model'],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: 'spindle_model_tokens_total',
      help: 'Tokens by model and kind: input and output (all of them), and of those cached_input, cache_write and reasoning.',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.cost = new Counter({
      name: 'spindle_model_cost_usd_total',
      help: 'USD of priced model calls, by model.',
      labelNames: ['model'],
      registers,
    });
    this.unpriced = new Counter({
      name: 'spindle_model_calls_unpriced_total',
      help: 'Model calls whose model has no price: their cost is unknown, not 0.',
      labelNames: ['model'],
      registers,
    });
    this.reportedCost = new Counter({
      name: 'spindle_reported_cost_usd_total',
      help: 'USD user code reported spending outside model calls (ctx.reportUsage), by kind (function, tool) and name.',
      labelNames: ['kind', 'name'],
      registers,
    });
    this.failedAttempts = new Counter({
      name: 'spindle_user_code_attempts_failed_total',
      help: 'Tries of a function or tool that failed and were retried, by kind, name and error code.',
      labelNames: ['kind', 'name', 'error_code'],
      registers,
    });
    this.toolCalls = new Counter({
      name: 'spindle_tool_calls_total',
      help: 'Tool and MCP calls that returned, by tool and outcome (ok, error).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: 'spindle_tool_call_duration_seconds',
      help: 'Tool and MCP calls by tool.',
      labelNames: ['tool'],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.requests = new Counter({
      name: 'spindle_human_requests_total',
      help: 'Requests to a person a run made, by kind (input, approval).',
      labelNames: ['kind'],
      registers,
    });
  }

  /** Counts committed events; looks up the workflow of runs that end without their start in memory. */
  async observe(events: readonly RunEvent[]): Promise<void> {
    const unknown = new Set<string>();
    for (const e of events) {
      if (e.type === 'run.queued') this.remember(e.runId, e.data.workflow.name);
      else if (isTerminalEvent(e) && !this.workflowOfRun.has(e.runId)) unknown.add(e.runId);
    }
    const looked = unknown.size > 0 ? await this.lookup([...unknown]).catch(() => new Map<string, string>()) : new Map<string, string>();
    for (const [runId, workflow] of looked) this.remember(runId, workflow);
    for (const e of events) onRunEvent(this.handlers, e);
  }

  private remember(runId: string, workflow: string): void {
    if (this.workflowOfRun.size >= MAX_REMEMBERED_RUNS) this.workflowOfRun.delete(this.workflowOfRun.keys().next().value!);
    this.workflowOfRun.set(runId, workflow);
  }

  private ended(e: RunEvent, status: string, durationMs: number | undefined, errorCode = 'none'): void {
    const workflow = this.workflow(this.workflowOfRun.get(e.runId));
    this.workflowOfRun.delete(e.runId);
    this.runsEnded.inc({ workflow, status, error_code: errorCode });
    if (durationMs !== undefined) this.runDuration.observe({ workflow, status }, durationMs / 1_000);
  }

  private modelUsage(model: string, usage: Usage): void {
    const kinds: Array<[string, number | undefined]> = [
      ['input', usage.inputTokens],
      ['output', usage.outputTokens],
      ['cached_input', usage.cachedInputTokens],
      ['cache_write', usage.cacheWriteTokens],
      ['reasoning', usage.reasoningTokens],
    ];
    for (const [kind, n] of kinds) if (n) this.tokens.inc({ model, kind }, n);
    if (usage.costUsd === undefined) this.unpriced.inc({ model });
    else if (usage.costUsd > 0) this.cost.inc({ model }, usage.costUsd);
  }

  private readonly handlers: RunEventHandlers = {
    'run.queued': (e) => this.runsQueued.inc({ workflow: this.workflow(e.data.workflow.name) }),
    'run.started': () => undefined,
    'run.awaiting': () => undefined,
    'run.resumed': () => undefined,
    'run.yielded': () => undefined,
    'run.completed': (e) => this.ended(e, 'completed', e.data.durationMs),
    'run.failed': (e) => this.ended(e, 'failed', e.data.durationMs, e.data.error.code),
    'run.canceled': (e) => this.ended(e, 'canceled', e.data.durationMs),
    'node.started': () => undefined,
    'node.completed': (e) =>
      this.nodeDuration.observe({ node_type: this.nodeType(e.data.nodeType), status: 'completed' }, e.data.durationMs / 1_000),
    'node.failed': (e) =>
      this.nodeDuration.observe({ node_type: this.nodeType(e.data.nodeType), status: 'failed' }, e.data.durationMs / 1_000),
    'model.started': () => undefined,
    'model.completed': (e) => {
      const model = this.model(e.data.model);
      // Served from a replay's recording: no provider was asked, nothing was spent.
      if (e.data.replayedFrom) return void this.modelCalls.inc({ model, status: 'replayed', error_code: 'none' });
      this.modelCalls.inc({ model, status: 'completed', error_code: 'none' });
      this.modelDuration.observe({ model }, e.data.durationMs / 1_000);
      this.modelUsage(model, e.data.usage);
    },
    'model.failed': (e) => this.modelCalls.inc({ model: this.model(e.data.model), status: 'failed', error_code: e.data.error.code }),
    'tool.called': () => undefined,
    'tool.returned': (e) => {
      const tool = this.tool(e.data.name);
      this.toolCalls.inc({ tool, outcome: e.data.error ? 'error' : 'ok' });
      this.toolDuration.observe({ tool }, e.data.durationMs / 1_000);
    },
    'loop.iteration': () => undefined,
    'branch.started': () => undefined,
    'branch.completed': () => undefined,
    'input.requested': () => this.requests.inc({ kind: 'input' }),
    'input.answered': () => undefined,
    'approval.requested': () => this.requests.inc({ kind: 'approval' }),
    'approval.resolved': () => undefined,
    'checkpoint.saved': () => undefined,
    'context.truncated': () => undefined,
    'memory.compacted': () => undefined,
    'retrieval.completed': () => undefined,
    'usage.reported': (e) => {
      const cost = e.data.usage.costUsd ?? 0;
      if (cost > 0) this.reportedCost.inc({ kind: e.data.source.kind, name: this.userCode(e.data.source.name) }, cost);
    },
    'attempt.failed': (e) =>
      this.failedAttempts.inc({ kind: e.data.kind, name: this.userCode(e.data.name), error_code: e.data.error.code }),
    custom: () => undefined,
  };
}
