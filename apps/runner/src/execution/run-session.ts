import { vouchedToolResult } from './run-files';
import { routedRetriever } from '../plugins/plugin-retrievers';
import { knowledgeRetriever } from './knowledge-retriever';
import { context, trace, SpanKind, type Context, type Span } from '@opentelemetry/api';
import { RunLogWriter, secretFieldsOfDefinition, type LogPosition } from '@spindle/bus';
import type { RunEvent, RunEventOf } from '@spindle/contracts';
import { CallRecording, RunHistory, servedSeqs, type RunEnvironment } from '@spindle/engine';
import type { ExecutionPlan } from '@spindle/projections';
import { randomHexId } from '@spindle/telemetry';
import type { Logger } from 'pino';
import { ulid } from 'ulid';
import { McpToolSource } from '../mcp/mcp-tool-source';
import { RunToolPort } from '../mcp/run-tool-port';
import { OtelSpanBridge } from '../otel-span-bridge';
import { TokenPublisher } from '../token-publisher';
import type { CommandDelivery, RunExecutorDeps } from './run-executor.types';
import { runSignal, type RunSignal } from './run-signal';

/** What the runner read before it decided to execute: the run's log and the plan made from it. */
export interface RunToExecute {
  runId: string;
  events: RunEvent[];
  position: LogPosition;
  queued: RunEventOf<'run.queued'>;
  plan: Exclude<ExecutionPlan, { action: 'skip' }>;
  /** A replay's recording: the log of the run it replays (`run.queued` names it in `replayOf`). */
  recorded?: RunEvent[];
}

/**
 * Everything one execution of a run holds, opened together and closed together: its OTel span,
 * its log writer, its token channel, its MCP connections and its abort signal.
 */
export class RunSession {
  readonly logger: Logger;
  readonly log: RunLogWriter;
  readonly signal: RunSignal;
  readonly history?: RunHistory;
  /** A replay's recorded calls, less those its log says it already took. */
  readonly recording?: CallRecording;
  /** The definition to run: the queued one, or the version an answer asked the run to continue with. */
  readonly definitionSource: unknown;
  private readonly span: Span;
  private readonly spanContext: Context;
  private readonly bridge: OtelSpanBridge;
  private readonly tokens: TokenPublisher;
  private readonly tools: RunToolPort;

  constructor(
    private readonly deps: RunExecutorDeps,
    readonly run: RunToExecute,
    private readonly delivery: CommandDelivery,
    shutdown: AbortSignal,
  ) {
    const { runId, queued, plan } = run;
    this.logger = deps.logger.child({ runId });
    this.span = deps.tracer.startSpan(
      `run ${queued.data.workflow.name}`,
      { kind: SpanKind.CONSUMER, attributes: { 'spindle.run_id': runId, 'spindle.workflow': queued.data.workflow.name } },
      delivery.parent,
    );
    this.spanContext = trace.setSpan(delivery.parent, this.span);
    this.bridge = new OtelSpanBridge(deps.tracer, this.span, this.spanContext, { captureContent: deps.captureGenAiContent });
    this.definitionSource = plan.action === 'resume' && plan.definition !== undefined ? plan.definition : queued.data.definition;
    this.log = new RunLogWriter(deps.bus, runId, run.position, {
      secretFields: secretFieldsOfDefinition(this.definitionSource),
      maxEventBytes: deps.maxEventBytes,
      maxLogBytes: deps.maxLogBytes,
      retryForMs: deps.busRetryMs,
      // Past the shutdown grace period, an append NATS does not answer is not retried.
      signal: shutdown,
      traceContext: () => this.bridge.contextFor(),
      // The OTel bridge sees each event as the log has it, once it has its seq.
      onAppended: (event) => this.bridge.observe(event),
      onStored: (events) => {
        deps.metrics?.logMessages.inc();
        deps.metrics?.logEvents.inc(events);
      },
    });
    this.tokens = new TokenPublisher(deps.bus, runId);
    this.history = plan.action === 'resume' ? new RunHistory(run.events) : undefined;
    const replayOf = queued.data.replayOf;
    if (replayOf && run.recorded)
      this.recording = new CallRecording(replayOf.runId, replayOf.onDivergence, run.recorded, servedSeqs(run.events));
    this.signal = runSignal(this.definitionSource, {
      bus: deps.bus,
      runId,
      runTimeoutMs: deps.runTimeoutMs,
      runTimeoutCeilingMs: deps.runTimeoutCeilingMs,
      activeMsBefore: this.history?.activeMs ?? 0,
      shutdown,
      logger: this.logger,
    });
    // MCP connections belong to the run: opened by its agents, closed with the session.
    this.tools = new RunToolPort(
      deps.tools,
      new McpToolSource({
        policy: deps.mcpPolicy,
        fetch: deps.egressFetch,
        onSkippedTool: (server, tool, reason) => this.logger.warn({ server, tool, reason }, 'MCP tool not offered to the model'),
      }),
    );
  }

  /** Runs `fn` inside the run span's context, so every log line of the run carries its trace id. */
  inSpan<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(this.spanContext, fn);
  }

  /** The engine's ports for this execution; each wait on the world gives the run's step slot up. */
  environment(): RunEnvironment {
    const { deps, run, delivery } = this;
    const { queued } = run;
    const waiting = <T>(wait: () => Promise<T>): Promise<T> => (deps.slots ? deps.slots.whileWaiting(wait) : wait());
    return {
      runId: run.runId,
      rootSpanId: queued.spanId,
      log: {
        append: (draft) => this.log.append(draft),
        durable: () => (this.log.storedSeq >= this.log.lastSeq ? this.log.durable() : waiting(() => this.log.durable())),
      },
      model: { generate: (request) => waiting(() => deps.model.generate(request)) },
      functions: {
        get: (name) => {
          const fn = deps.functions.get(name);
          return fn && ((ctx) => awaitWithoutSlot(fn(ctx), waiting));
        },
        isPure: (name) => deps.functions.isPure?.(name) ?? false,
      },
      tools: {
        specs: (names) => this.tools.specs(names),
        discover: (servers, ctx) => waiting(() => this.tools.discover(servers, ctx)),
        call: (name, args, ctx) => waiting(async () => vouchedToolResult(deps.bus, await this.tools.call(name, args, ctx))),
      },
      tokens: this.tokens,
      retriever: (() => {
        const knowledge = routedRetriever(deps.retrievers, knowledgeRetriever(deps.bus, queued.data.tenant));
        return { retrieve: (request) => waiting(() => knowledge.retrieve(request)) };
      })(),
      clock: { now: () => new Date() },
      ids: {
        spanId: () => randomHexId(8),
        correlationId: () => randomHexId(6),
        requestId: () => `req_${ulid()}`,
      },
      signal: this.signal.signal,
      ...(this.history ? { history: this.history } : {}),
      ...(this.recording ? { recording: this.recording } : {}),
      ...(delivery.drain ? { drain: delivery.drain } : {}),
      ...(deps.results ? { results: deps.results } : {}),
      ...(queued.data.cacheRuns ? { cacheRuns: queued.data.cacheRuns } : {}),
      maxSteps: deps.maxSteps,
      reportRedacted: (correlationId, error) =>
        this.logger.error({ correlationId, err: error }, 'user code failed (redacted in the run log)'),
    };
  }

  async close(): Promise<void> {
    this.signal.dispose();
    this.tokens.close();
    await this.tools.close().catch((err: unknown) => this.logger.warn({ err }, 'closing MCP connections failed'));
    this.bridge.endAll();
    this.span.end();
  }
}

/** A function's result as it is; a promise is waited for without the run's step slot. */
function awaitWithoutSlot<T>(result: T | Promise<T>, waiting: <U>(wait: () => Promise<U>) => Promise<U>): T | Promise<T> {
  return result instanceof Promise ? waiting(() => result) : result;
}
