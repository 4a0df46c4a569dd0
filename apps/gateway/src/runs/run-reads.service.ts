import { lastEventOf, query, readRunLog, type Bus, type RunLogTail } from '@spindle/bus';
import {
  isRunId,
  isTerminalEvent,
  runIdTime,
  runLineage,
  type RunLineage,
  SpindleError,
  type RunEvent,
  type RunSummary,
  type RunTrace,
  type TraceQuery,
  type TraceQueryResults,
} from '@spindle/contracts';
import type { RunLogLoss } from './run-log-loss';

/**
 * Reads of runs. Events come from the log itself; summaries and traces from the trace
 * recorder, asked to answer only once it has applied the log's last event (read-your-writes).
 */
export class RunReads {
  constructor(
    private readonly bus: Bus,
    private readonly projectionWaitMs: number,
    /** Runs older than this are gone (`SPINDLE_RETENTION_DAYS`); unset: kept for ever. */
    private readonly retentionMs?: number,
    private readonly now: () => number = Date.now,
    private readonly loss?: RunLogLoss,
  ) {}

  /**
   * The run's last seq; `run_expired` for a run older than the retention (whatever of it is left
   * is not served as an answer), else `run_not_found` when there is no such run. Ids that could
   * not be a run are not found either.
   */
  async requireRun(runId: string): Promise<number> {
    return (await this.requireLast(runId)).event.seq;
  }

  /** As `requireRun`, with the run's last event and where its log ended (a stream starts from there). */
  async requireLast(runId: string): Promise<RunLogTail> {
    this.refuseExpired(runId);
    const read = () => lastEventOf(this.bus, runId);
    const last = isRunId(runId) ? await (this.loss ? this.loss.read(read) : read()) : undefined;
    if (last) return last;
    if (isRunId(runId)) await this.loss?.refuseLost(runId);
    throw new SpindleError('run_not_found', `no run with id "${runId}"`);
  }

  /** A ULID run id says when the run was made: past the retention, its log is gone or going. */
  refuseExpired(runId: string): void {
    const made = runIdTime(runId);
    if (this.retentionMs === undefined || made === undefined || this.now() - made <= this.retentionMs) return;
    const days = Math.round((this.retentionMs / 86_400_000) * 100) / 100;
    throw new SpindleError(
      'run_expired',
      `run ${runId} was started on ${new Date(made).toISOString()}, past this deployment's ${days}-day retention`,
    );
  }

  async events(runId: string, afterSeq: number): Promise<{ events: RunEvent[]; lastSeq: number; terminal: boolean }> {
    await this.requireRun(runId);
    const { events, position } = await readRunLog(this.bus, runId, afterSeq);
    const lastSeq = position?.seq ?? 0;
    const terminal = events.some(isTerminalEvent) || (afterSeq >= lastSeq && (await this.isTerminal(runId)));
    return { events, lastSeq, terminal };
  }

  async summary(runId: string): Promise<RunSummary> {
    const lastSeq = await this.requireRun(runId);
    const { run } = await this.ask('getRun', { runId, waitForSeq: lastSeq });
    if (!run) throw new SpindleError('service_unavailable', `the trace recorder has not recorded run ${runId} yet; retry shortly`);
    return run;
  }

  async trace(runId: string): Promise<RunTrace> {
    const lastSeq = await this.requireRun(runId);
    const { trace } = await this.ask('getTrace', { runId, waitForSeq: lastSeq });
    if (!trace) throw new SpindleError('service_unavailable', `the trace recorder has not recorded run ${runId} yet; retry shortly`);
    return trace;
  }

  /** The run's fork tree within the tenant, once the recorder has applied the run's log (its ancestors were there before it). */
  async lineage(tenant: string, runId: string): Promise<RunLineage> {
    const lastSeq = await this.requireRun(runId);
    const { runs, truncated } = await this.ask('lineage', { tenant, runId, waitForSeq: lastSeq });
    if (!runs.some((r) => r.runId === runId))
      throw new SpindleError('service_unavailable', `the trace recorder has not recorded run ${runId} yet; retry shortly`);
    return runLineage(runId, runs, truncated);
  }

  /** A page of runs as the recorder lists them; one whose log a lost store took is marked `logLost`. */
  async list(filter: TraceQuery<'listRuns'>): Promise<TraceQueryResults['listRuns']> {
    const page = await this.ask('listRuns', filter);
    return this.loss ? { ...page, runs: await this.loss.markLost(page.runs) } : page;
  }

  /** The overview's figures of the tenant's runs since `from`. */
  overview(filter: TraceQuery<'overview'>): Promise<TraceQueryResults['overview']> {
    return this.ask('overview', filter);
  }

  private async isTerminal(runId: string): Promise<boolean> {
    const last = await lastEventOf(this.bus, runId);
    return last ? isTerminalEvent(last.event) : false;
  }

  private ask<Op extends keyof TraceQueryResults>(op: Op, payload: unknown): Promise<TraceQueryResults[Op]> {
    return query<TraceQueryResults[Op]>(this.bus, 'trace', op, payload, this.projectionWaitMs + 5_000);
  }
}
