import { context, type Context } from '@opentelemetry/api';
import { lastEventOf, query, type Bus } from '@spindle/bus';
import type { CheckpointQueryResults } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { RunStarts } from '../run-ports';
import { failedForGood } from '../start-failure';
import { nextThreadRun } from './thread-start-plan';
import type { PendingRequest, ThreadRepository, ThreadRunRow } from './thread.repository';

/**
 * Starts threads' waiting runs (`pending`) when the runs before them have ended: after every
 * projection batch that ended a run, on a tick, and right after a start on the thread. A run
 * starts from the state the thread's runs before it left (and an interrupting one from the
 * interrupted run's latest checkpoint).
 */
export class ThreadDispatcher {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly threads: ThreadRepository,
    private readonly starter: RunStarts,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly projectionWaitMs: number,
  ) {}

  /**
   * Starts the next waiting run of each thread whose runs before it have all ended. Run by the
   * service's `PeriodicLoop` (one pass at a time, again when a batch ended a run meanwhile).
   */
  async dispatchReady(): Promise<void> {
    await this.recoverStaleStarts();
    for (const threadId of await this.threads.readyToDispatch()) await this.dispatch(threadId);
  }

  /** Takes the thread's next run (`nextThreadRun`) under its lock and starts it. Returns the run it started. */
  async dispatch(threadId: string, trace?: Context): Promise<string | undefined> {
    const next = await this.db.transaction().execute(async (trx) => {
      if (!(await this.threads.lock(trx, threadId))) return undefined;
      const next = nextThreadRun((await this.threads.runs(threadId, trx)).map(slotOf));
      if (next) await this.threads.setStatus(trx, [next.run.runId], 'starting');
      return next;
    });
    if (!next) return undefined;
    const { row } = next.run;
    try {
      await this.start(row, trace, next.progressOf);
      await this.threads.startedAs(row.run_id, 'queued');
      return row.run_id;
    } catch (e) {
      const failure = failedForGood(e);
      if (!failure) this.logger.warn({ err: e, threadId, runId: row.run_id }, "could not start a thread's next run; trying again");
      await this.threads.startedAs(row.run_id, failure ? 'failed' : 'pending', failure);
      return undefined;
    }
  }

  /** A start whose process died midway: in the log already (the projection moves it on), or pending again. */
  private async recoverStaleStarts(): Promise<void> {
    for (const row of await this.threads.staleStarts())
      await this.threads.startedAs(row.run_id, (await lastEventOf(this.bus, row.run_id)) ? 'queued' : 'pending');
  }

  private async start(row: ThreadRunRow, trace: Context | undefined, progressOf: string | undefined): Promise<void> {
    const { caller, body, rollsBack } = row.request as PendingRequest;
    const { state } = await this.threads.state(row.thread_id);
    const progress = progressOf ? await this.latestCheckpointState(progressOf) : undefined;
    await this.starter.start(
      caller,
      row.workflow,
      { input: body.input, parameters: body.parameters, version: body.version, webhooks: body.webhooks, state: { ...state, ...progress } },
      undefined,
      trace ?? context.active(),
      {
        runId: row.run_id,
        thread: {
          id: row.thread_id,
          position: row.position,
          multitaskStrategy: row.strategy as PendingRequest['body']['multitaskStrategy'],
          ...(rollsBack.length ? { rollsBack } : {}),
        },
      },
    );
  }

  /** An interrupted run's state at its latest checkpoint, if it reached one. */
  private async latestCheckpointState(runId: string): Promise<Record<string, unknown> | undefined> {
    const last = await lastEventOf(this.bus, runId);
    if (!last) return undefined;
    const { checkpoint } = await query<CheckpointQueryResults['getCheckpoint']>(
      this.bus,
      'checkpoint',
      'getCheckpoint',
      { runId, waitForSeq: last.event.seq },
      this.projectionWaitMs + 5_000,
    );
    return checkpoint?.state;
  }
}

/** A row as the plans read it, the row itself kept for the start. */
export const slotOf = (row: ThreadRunRow) => ({
  runId: row.run_id,
  status: row.status,
  position: row.position,
  strategy: row.strategy,
  row,
});
