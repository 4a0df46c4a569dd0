import { lastEventOf, query, readRunLog, type Bus } from '@spindle/bus';
import {
  isRunId,
  isTerminalEvent,
  SpindleError,
  type RunEvent,
  type RunSummary,
  type RunTrace,
  type TraceQuery,
  type TraceQueryResults,
} from '@spindle/contracts';

/**
 * Reads of runs. Events come from the log itself; summaries and traces from the trace
 * recorder, asked to answer only once it has applied the log's last event (read-your-writes).
 */
export class RunReads {
  constructor(
    private readonly bus: Bus,
    private readonly projectionWaitMs: number,
  ) {}

  /** The run's last seq, or `run_not_found`. Ids that could not be a run are not found either. */
  async requireRun(runId: string): Promise<number> {
    const last = isRunId(runId) ? await lastEventOf(this.bus, runId) : undefined;
    if (!last) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    return last.event.seq;
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

  list(filter: TraceQuery<'listRuns'>): Promise<TraceQueryResults['listRuns']> {
    return this.ask('listRuns', filter);
  }

  private async isTerminal(runId: string): Promise<boolean> {
    const last = await lastEventOf(this.bus, runId);
    return last ? isTerminalEvent(last.event) : false;
  }

  private ask<Op extends keyof TraceQueryResults>(op: Op, payload: unknown): Promise<TraceQueryResults[Op]> {
    return query<TraceQueryResults[Op]>(this.bus, 'trace', op, payload, this.projectionWaitMs + 5_000);
  }
}
