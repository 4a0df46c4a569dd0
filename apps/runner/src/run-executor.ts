import { randomBytes } from 'node:crypto';
import { context, trace, SpanKind, type Context, type Tracer } from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import { isSpindleError, isTerminalEvent, runControlSchema, SpindleError, type RunEvent, type RunEventDraft, type RunEventOf } from '@spindle/contracts';
import { executeRun, validateDefinition, type FunctionRegistry, type ModelPort, type RunOutcome, type ToolPort } from '@spindle/engine';
import { injectTraceContext } from '@spindle/telemetry';
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
  /** Which MCP servers definitions may name; `SPINDLE_MCP_ALLOW` when absent. */
  /** Which MCP servers agent nodes may start or reach (`SPINDLE_MCP_ALLOW`). */
  mcpPolicy: McpPolicy;
}

export type CommandResult = 'done' | 'lost' | 'ignored';

/**
 * Executes one `run.start` command: reads the run's log (the only source of what to run),
 * appends the run's events, and reports whether the command can be acknowledged.
 */
export async function executeStartCommand(deps: RunExecutorDeps, runId: string, delivery: { attempt: number; parent: Context }, abort: AbortSignal): Promise<CommandResult> {
  const { events, position } = await readRunLog(deps.bus, runId);
  const queued = events[0];
  if (!position || queued?.type !== 'run.queued') {
    deps.logger.error({ runId }, 'start command names a run without a run.queued event; dropping it');
    return 'ignored';
  }
  if (events.some(isTerminalEvent)) return 'done';

  const runSpan = deps.tracer.startSpan(`run ${queued.data.workflow.name}`, { kind: SpanKind.CONSUMER, attributes: { 'spindle.run_id': runId, 'spindle.workflow': queued.data.workflow.name } }, delivery.parent);
  const bridge = new OtelSpanBridge(deps.tracer, runSpan, trace.setSpan(delivery.parent, runSpan));
  const log = new RunLogWriter(deps.bus, runId, position, {
    maxEventBytes: deps.maxEventBytes,
    headers: () => {
      const h = natsHeaders();
      injectTraceContext(h, bridge.contextFor());
      return h;
    },
  });
  const tokens = new TokenPublisher(deps.bus.nc, deps.bus.names.tokenSubject(runId), runId);
  const runLogger = deps.logger.child({ runId });
  // Listening before `run.started` is appended: a cancel sent after it was seen always arrives.
  const run = runSignal(queued.data.definition, deps, abort, runId, runLogger);
  // MCP connections belong to the run: opened by its agents, closed in `finally` below.
  const tools = new RunToolPort(deps.tools, new McpToolSource({
    policy: deps.mcpPolicy,
    onSkippedTool: (server, tool, reason) => runLogger.warn({ server, tool, reason }, 'MCP tool not offered to the model'),
  }));

  try {
    if (events.some((e) => e.type === 'run.started')) {
      // A runner died mid-run. Continuing from checkpoints is the durable-runs work; until then
      // the run closes honestly instead of re-running steps whose effects already happened.
      await log.append(runEvent('run.failed', queued, { error: { code: 'interrupted', message: 'the runner executing this run stopped before it finished' }, durationMs: 0 }));
      return 'done';
    }
    const definition = validateDefinition(queued.data.definition);
    if (run.clamped) runLogger.warn({ asked: run.asked, ceiling: deps.runTimeoutCeilingMs }, 'the definition asks for a run timeout beyond the ceiling; using the ceiling');
    // Inside the run span's context, so every log line of the run carries its trace id.
    await context.with(trace.setSpan(delivery.parent, runSpan), async () => {
      const outcome: RunOutcome = await executeRun(
        { definition, state: queued.data.state, subgraphs: embeddedSubgraphs(queued.data.subgraphs), attempt: delivery.attempt, worker: deps.workerId },
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
          ids: { spanId: () => randomBytes(8).toString('hex'), correlationId: () => randomBytes(6).toString('hex') },
          signal: run.signal,
          maxSteps: deps.maxSteps,
          reportRedacted: (correlationId, error) => runLogger.error({ correlationId, err: error }, 'user code failed (redacted in the run log)'),
        },
      );
      runLogger.info({ status: outcome.status, lastSeq: log.lastSeq }, 'run finished');
    });
    return 'done';
  } catch (e) {
    if (isSpindleError(e) && e.code === 'run_lost') {
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

function embeddedSubgraphs(embedded: Record<string, { version: number; definition: unknown }> | undefined) {
  return new Map(Object.entries(embedded ?? {}).map(([ref, { version, definition }]) => [ref, { version, definition: validateDefinition(definition) }]));
}

/**
 * The run's abort signal: its timeout (the definition's `runTimeoutMs`, else the runner's
 * default, never beyond the ceiling) or the runner shutting down.
 */
function runSignal(definition: unknown, deps: RunExecutorDeps, shutdown: AbortSignal, runId: string, logger: Logger) {
  const asked = (definition as { runTimeoutMs?: unknown })?.runTimeoutMs;
  const wanted = typeof asked === 'number' && asked > 0 ? asked : deps.runTimeoutMs;
  const timeoutMs = Math.min(wanted, deps.runTimeoutCeilingMs);
  const controller = new AbortController();
  const stop = (reason: SpindleError) => !controller.signal.aborted && controller.abort(reason);
  const timer = setTimeout(() => stop(new SpindleError('run_timeout', `run exceeded its ${timeoutMs} ms timeout`)), timeoutMs);
  const onShutdown = () => stop(isSpindleError(shutdown.reason) ? shutdown.reason : new SpindleError('interrupted', 'runner shutting down'));
  shutdown.addEventListener('abort', onShutdown, { once: true });
  const control = deps.bus.nc.subscribe(deps.bus.names.controlSubject(runId), {
    callback: (err, msg) => {
      const parsed = err ? undefined : runControlSchema.safeParse(msg.json());
      if (!parsed?.success) return void logger.warn({ subject: msg?.subject }, 'ignoring an invalid run control message');
      stop(new SpindleError('canceled', parsed.data.reason ? `canceled: ${parsed.data.reason}` : 'canceled by request'));
    },
  });
  return {
    signal: controller.signal,
    asked,
    clamped: wanted > deps.runTimeoutCeilingMs,
    dispose() {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
      control.unsubscribe();
    },
  };
}

function runEvent<T extends 'run.failed'>(type: T, queued: RunEventOf<'run.queued'>, data: RunEventOf<T>['data']): RunEventDraft {
  return { type, spanId: queued.spanId, path: 'root', data } as RunEventDraft;
}
