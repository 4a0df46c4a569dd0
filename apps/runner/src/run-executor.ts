import { randomBytes } from 'node:crypto';
import { context, trace, SpanKind, type Context, type Tracer } from '@opentelemetry/api';
import { publishRunCommand, readRunLog, RunLogWriter, subscribeRunControl, type Bus } from '@spindle/bus';
import { isSpindleError, isTerminalEvent, SpindleError, type RunEvent, type RunEventDraft, type RunEventOf } from '@spindle/contracts';
import {
  executeRun,
  RunHistory,
  validateDefinition,
  type FunctionRegistry,
  type ModelPort,
  type NodeResultStore,
  type RunOutcome,
  type ToolPort,
} from '@spindle/engine';
import { planExecution } from '@spindle/projections';
import { ulid } from 'ulid';
import type { Logger } from 'pino';
import { McpToolSource } from './mcp/mcp-tool-source';
import type { McpPolicy } from './mcp/mcp-policy';
import { RunToolPort } from './mcp/run-tool-port';
import { OtelSpanBridge } from './otel-span-bridge';
import { TokenPublisher } from './token-publisher';

export interface RunExecutorDeps {
  bus: Bus;
  model: ModelPort;
  functions: FunctionRegistry;
  tools: ToolPort;
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
  /** Executions of one run (first plus resumes after lost runners) before it closes `interrupted`. */
  maxAttempts: number;
  /** Stored results of `checkpoint: true` nodes (the checkpoint service). */
  results?: NodeResultStore;
  /** A run's log may not grow beyond this many bytes (`SPINDLE_MAX_RUN_LOG_BYTES`). */
  maxLogBytes?: number;
  /** How long an append NATS does not answer is retried before the run is handed back. */
  busRetryMs?: number;
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

/**
 * Executes one run command (`run.start`, `run.resume`): reads the run's log (the only source of what to run),
 * appends the run's events, and reports whether the command can be acknowledged.
 */
export async function executeRunCommand(
  deps: RunExecutorDeps,
  runId: string,
  delivery: CommandDelivery,
  abort: AbortSignal,
): Promise<CommandResult> {
  const { events, position } = await readRunLog(deps.bus, runId, 0, {
    onSkip: (skipped) => deps.logger.warn(skipped, 'skipping a message that is not part of the run log'),
  });
  const queued = events[0];
  if (!position || queued?.type !== 'run.queued') return { deadLetter: `the log of run ${runId} has no run.queued event at seq 1` };
  const plan = planExecution(events, delivery.attempt, deps.maxAttempts);
  if (plan.action === 'skip') {
    deps.logger.debug({ runId, why: plan.why }, 'nothing to execute');
    return events.some(isTerminalEvent) ? 'done' : 'ignored';
  }

  const runSpan = deps.tracer.startSpan(
    `run ${queued.data.workflow.name}`,
    { kind: SpanKind.CONSUMER, attributes: { 'spindle.run_id': runId, 'spindle.workflow': queued.data.workflow.name } },
    delivery.parent,
  );
  const bridge = new OtelSpanBridge(deps.tracer, runSpan, trace.setSpan(delivery.parent, runSpan));
  const log = new RunLogWriter(deps.bus, runId, position, {
    maxEventBytes: deps.maxEventBytes,
    maxLogBytes: deps.maxLogBytes,
    retryForMs: deps.busRetryMs,
    // Past the shutdown grace period, an append NATS does not answer is not retried.
    signal: abort,
    traceContext: () => bridge.contextFor(),
  });
  const tokens = new TokenPublisher(deps.bus, runId);
  const runLogger = deps.logger.child({ runId });
  const history = plan.action === 'resume' ? new RunHistory(events) : undefined;
  const definitionSource = plan.action === 'resume' && plan.definition !== undefined ? plan.definition : queued.data.definition;
  // Listening before `run.started` is appended: a cancel sent after it was seen always arrives.
  const run = runSignal(definitionSource, deps, abort, runId, runLogger, history?.activeMs ?? 0);
  // MCP connections belong to the run: opened by its agents, closed in `finally` below.
  const tools = new RunToolPort(
    deps.tools,
    new McpToolSource({
      policy: deps.mcpPolicy,
      onSkippedTool: (server, tool, reason) => runLogger.warn({ server, tool, reason }, 'MCP tool not offered to the model'),
    }),
  );

  let result: CommandResult = 'done';
  try {
    if (plan.action === 'give_up') {
      const message = `the runners executing this run stopped before it finished, ${plan.attempts} times`;
      await log.append(runEvent('run.failed', queued, { error: { code: 'interrupted', message }, durationMs: 0 }));
      runLogger.warn({ attempts: plan.attempts }, 'run closed interrupted: too many lost runners');
      return 'done';
    }
    const prepared = prepareRun(definitionSource, queued);
    if (!prepared.ok) {
      // A log the gateway would never have written (a definition that does not validate): the run fails, typed.
      await log.append(runEvent('run.failed', queued, { error: { code: 'invalid_definition', message: prepared.message }, durationMs: 0 }));
      runLogger.warn({ reason: prepared.message }, 'run failed: its log holds an invalid definition');
      return 'done';
    }
    const { definition, subgraphs } = prepared;
    if (run.clamped)
      runLogger.warn(
        { asked: run.asked, ceiling: deps.runTimeoutCeilingMs },
        'the definition asks for a run timeout beyond the ceiling; using the ceiling',
      );
    // Inside the run span's context, so every log line of the run carries its trace id.
    await context.with(trace.setSpan(delivery.parent, runSpan), async () => {
      const outcome: RunOutcome = await executeRun(
        {
          definition,
          state: queued.data.state,
          subgraphs,
          attempt: plan.attempt,
          worker: deps.workerId,
          ...(queued.data.start ? { start: queued.data.start } : {}),
          ...(plan.action === 'resume'
            ? { resume: { reason: plan.reason, ...(plan.definitionVersion ? { definitionVersion: plan.definitionVersion } : {}) } }
            : {}),
        },
        {
          runId,
          rootSpanId: queued.spanId,
          log: {
            append: async (draft: RunEventDraft) => {
              const seq = await log.append(draft);
              bridge.observe({ ...draft, runId, seq, at: new Date().toISOString() } as RunEvent);
              return seq;
            },
          },
          model: deps.model,
          functions: deps.functions,
          tools,
          tokens,
          clock: { now: () => new Date() },
          ids: {
            spanId: () => randomBytes(8).toString('hex'),
            correlationId: () => randomBytes(6).toString('hex'),
            requestId: () => `req_${ulid()}`,
          },
          signal: run.signal,
          ...(history ? { history } : {}),
          ...(delivery.drain ? { drain: delivery.drain } : {}),
          ...(deps.results ? { results: deps.results } : {}),
          ...(queued.data.cacheRuns ? { cacheRuns: queued.data.cacheRuns } : {}),
          maxSteps: deps.maxSteps,
          reportRedacted: (correlationId, error) =>
            runLogger.error({ correlationId, err: error }, 'user code failed (redacted in the run log)'),
        },
      );
      runLogger.info(
        {
          status: outcome.status,
          lastSeq: log.lastSeq,
          ...(plan.action === 'resume' ? { resumed: plan.reason, attempt: plan.attempt } : {}),
        },
        outcome.status === 'awaiting' ? 'run waits for a person' : outcome.status === 'yielded' ? 'run handed back' : 'run finished',
      );
      result = outcome.status === 'yielded' ? await requeue(deps, runId, log.lastSeq, runLogger) : 'done';
    });
    return result;
  } catch (e) {
    if (isSpindleError(e) && e.code === 'bus_unavailable') {
      runLogger.warn({ err: e }, 'NATS did not answer: handing the run back to continue once it does');
      return 'bus_unavailable';
    }
    if (isSpindleError(e) && e.code === 'run_lost') {
      if (abort.aborted) {
        runLogger.warn('shutdown grace period over: handing the run back mid-step');
        return 'handed_back';
      }
      runLogger.warn({ err: e }, 'another runner owns this run; stopping');
      return 'lost';
    }
    throw e;
  } finally {
    run.dispose();
    tokens.close();
    await tools.close().catch((err: unknown) => runLogger.warn({ err }, 'closing MCP connections failed'));
    bridge.endAll();
    runSpan.end();
  }
}

/** The run's definition and its embedded subgraphs, validated; a log that fails this cannot run. */
function prepareRun(definitionSource: unknown, queued: RunEventOf<'run.queued'>) {
  try {
    const definition = validateDefinition(definitionSource);
    const subgraphs = new Map(
      Object.entries(queued.data.subgraphs ?? {}).map(([ref, { version, definition: sub }]) => [
        ref,
        { version, definition: validateDefinition(sub) },
      ]),
    );
    return { ok: true as const, definition, subgraphs };
  } catch (e) {
    if (!isSpindleError(e)) throw e;
    return { ok: false as const, message: e.message };
  }
}

/**
 * A run handed back at a checkpoint goes back to the queue as a fresh resume command (its own
 * message id and delivery count), so drains never use up the command's deliveries.
 */
async function requeue(deps: RunExecutorDeps, runId: string, yieldedSeq: number, logger: Logger): Promise<CommandResult> {
  try {
    await publishRunCommand(deps.bus, { type: 'run.resume', runId, afterSeq: yieldedSeq, issuedAt: new Date().toISOString() });
    return 'requeued';
  } catch (err) {
    logger.warn({ err }, 'could not queue the handed-back run again; redelivering its command instead');
    return 'handed_back';
  }
}

/**
 * The run's abort signal: its timeout (the definition's `runTimeoutMs`, else the runner's
 * default, never beyond the ceiling) or the runner shutting down.
 */
function runSignal(
  definition: unknown,
  deps: RunExecutorDeps,
  shutdown: AbortSignal,
  runId: string,
  logger: Logger,
  activeMsBefore: number,
) {
  const asked = (definition as { runTimeoutMs?: unknown })?.runTimeoutMs;
  const wanted = typeof asked === 'number' && asked > 0 ? asked : deps.runTimeoutMs;
  const timeoutMs = Math.min(wanted, deps.runTimeoutCeilingMs);
  // Time spent waiting for a person does not count: only time a runner worked on it.
  const remainingMs = Math.max(1, timeoutMs - activeMsBefore);
  const controller = new AbortController();
  const stop = (reason: SpindleError) => !controller.signal.aborted && controller.abort(reason);
  const timer = setTimeout(() => stop(new SpindleError('run_timeout', `run exceeded its ${timeoutMs} ms timeout`)), remainingMs);
  // Past the shutdown grace period the run is handed back mid-step: nothing more is appended.
  const onShutdown = () => stop(new SpindleError('run_lost', 'handed back: the runner shut down before the run reached a checkpoint'));
  shutdown.addEventListener('abort', onShutdown, { once: true });
  const control = subscribeRunControl(deps.bus, runId, {
    onMessage: (c) => stop(new SpindleError('canceled', c.reason ? `canceled: ${c.reason}` : 'canceled by request')),
    onInvalid: (subject, reason) => logger.warn({ subject, reason }, 'ignoring an invalid run control message'),
  });
  return {
    signal: controller.signal,
    asked,
    clamped: wanted > deps.runTimeoutCeilingMs,
    dispose() {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
      control.close();
    },
  };
}

function runEvent<T extends 'run.failed'>(type: T, queued: RunEventOf<'run.queued'>, data: RunEventOf<T>['data']): RunEventDraft {
  return { type, spanId: queued.spanId, path: 'root', data } as RunEventDraft;
}

/**
 * Closes a run whose command is given up on (its execution kept failing for a reason nobody
 * could classify), so it does not sit `queued` or `running` for ever. Best effort: the command
 * is in the dead-letter stream either way.
 */
export async function failAbandonedRun(deps: RunExecutorDeps, runId: string, message: string): Promise<boolean> {
  const { events, position } = await readRunLog(deps.bus, runId);
  const queued = events[0];
  if (!position || queued?.type !== 'run.queued' || events.some(isTerminalEvent)) return false;
  await new RunLogWriter(deps.bus, runId, position, { retryForMs: 5_000 }).append(
    runEvent('run.failed', queued, { error: { code: 'internal', message }, durationMs: 0 }),
  );
  return true;
}
