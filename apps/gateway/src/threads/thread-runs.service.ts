import { context, type Context } from '@opentelemetry/api';
import { lastEventOf, query, type Bus } from '@spindle/bus';
import {
  isSpindleError,
  SpindleError,
  threadRunBodySchema,
  threadStateBodySchema,
  type CheckpointQueryResults,
  type Principal,
  type ThreadRunAccepted,
  type ThreadRunBody,
  type ThreadState,
} from '@spindle/contracts';
import {
  failedForGood,
  isActive,
  nextThreadRun,
  type PendingRequest,
  planThreadStart,
  type ThreadRepository,
  type ThreadRunRow,
} from '@spindle/control-plane';
import { recordStateChange, THREAD_STATE_WORKFLOW } from './thread-state-change';
import type { GatewayTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ulid } from 'ulid';
import { parseBody } from '../http/parse-body';
import type { RunCanceller } from '../runs/run-canceller.service';
import type { RunStarter } from '../runs/run-starter.service';
import type { WorkflowCatalogRepository } from '../workflows/workflow-catalog.repository';

/**
 * Runs on threads: each starts from the state the thread's runs before it left. A start on a busy
 * thread follows its `multitaskStrategy`; runs that wait for their turn (`pending`) are started
 * here when the thread's runs before them have ended (after every projection batch, and on a tick).
 */
export class ThreadRuns {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly threads: ThreadRepository,
    private readonly starter: RunStarter,
    private readonly canceller: RunCanceller,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly projectionWaitMs: number,
  ) {}

  async start(caller: Principal, threadId: string, rawBody: unknown, trace: Context): Promise<ThreadRunAccepted> {
    const body = parseBody(threadRunBodySchema, rawBody ?? {});
    // The thread first: another tenant's thread is not found, whatever workflow the body names.
    if (!(await this.threads.find(caller.tenant, threadId))) throw new SpindleError('thread_not_found', `no thread with id "${threadId}"`);
    await this.requireWorkflow(caller.tenant, body);
    // Decided under the thread's lock, started after it: a start waits on the admission, which may wait on
    // the projection, which may wait on this transaction's rows.
    const { run, toCancel } = await this.db.transaction().execute(async (trx) => {
      if (!(await this.threads.lock(trx, threadId, caller.tenant)))
        throw new SpindleError('thread_not_found', `no thread with id "${threadId}"`);
      const plan = planThreadStart(body.multitaskStrategy, (await this.threads.runs(threadId, trx)).map(slotOf));
      if (plan.kind === 'reject')
        throw new SpindleError(
          'thread_busy',
          `thread ${threadId} is busy with run ${plan.busyWith.runId} (${plan.busyWith.status}): ` +
            'wait for it to end, or start with multitaskStrategy enqueue, interrupt or rollback',
        );
      const position = await this.threads.takePosition(trx, threadId);
      const queued = { runId: ulid(), threadId, position, workflow: body.workflow, strategy: body.multitaskStrategy };
      await this.threads.insertRun(trx, { ...queued, status: 'pending' }, { body, caller, rollsBack: plan.rollsBack });
      await this.threads.setStatus(trx, plan.endNow, 'canceled');
      await this.threads.setStatus(trx, plan.rollsBack, 'rolled_back');
      return { run: queued, toCancel: plan.cancel };
    });
    for (const runId of toCancel) await this.cancelFor(runId, run.runId, threadId, body.multitaskStrategy, caller);
    const started = await this.dispatch(threadId, trace);
    return acceptedRun(run, started === run.runId ? 'queued' : 'pending');
  }

  /**
   * Changes the thread's state, recorded as a run of its own (`_thread_state`): `run.queued` and at
   * once `run.completed` with the new state, so the state stays a fold of the log. Refused while
   * the thread is busy, like a start with `reject`.
   */
  async setState(caller: Principal, threadId: string, rawBody: unknown): Promise<ThreadState> {
    const body = parseBody(threadStateBodySchema, rawBody ?? {});
    const runId = ulid();
    const state = await this.db.transaction().execute(async (trx) => {
      if (!(await this.threads.lock(trx, threadId, caller.tenant)))
        throw new SpindleError('thread_not_found', `no thread with id "${threadId}"`);
      const active = (await this.threads.runs(threadId, trx)).find((r) => isActive(r.status));
      if (active) throw new SpindleError('thread_busy', `thread ${threadId} is busy with run ${active.run_id} (${active.status})`);
      const position = await this.threads.takePosition(trx, threadId);
      // `starting` keeps it out of the dispatcher's way until its log is written.
      await this.threads.insertRun(trx, {
        runId,
        threadId,
        position,
        workflow: THREAD_STATE_WORKFLOW,
        status: 'starting',
        strategy: 'reject',
      });
      const current = (await this.threads.state(threadId, trx)).state;
      return { position, values: body.mode === 'replace' ? body.values : { ...current, ...body.values } };
    });
    try {
      await recordStateChange(this.bus, runId, caller, { id: threadId, position: state.position }, state.values);
      await this.threads.startedAs(runId, 'queued');
    } catch (e) {
      await this.threads.startedAs(runId, 'failed', toErrorBody(e));
      throw new SpindleError('service_unavailable', `could not record the state change: ${(e as Error).message}`, { cause: e });
    }
    return { threadId, state: state.values, stateFromRun: runId };
  }

  private passing?: Promise<void>;
  private again = false;

  /**
   * Starts the next waiting run of each thread whose runs before it have all ended. One pass at a
   * time: a call during a pass asks for one more after it. Never throws (a failed pass is logged,
   * and the tick tries again).
   */
  dispatchReady(): Promise<void> {
    if (this.passing) {
      this.again = true;
      return this.passing;
    }
    this.passing = (async () => {
      do {
        this.again = false;
        try {
          await this.recoverStaleStarts();
          for (const threadId of await this.threads.readyToDispatch()) await this.dispatch(threadId);
        } catch (err) {
          this.logger.warn({ err }, 'could not look for threads whose next run may start; trying again');
        }
      } while (this.again);
    })().finally(() => (this.passing = undefined));
    return this.passing;
  }

  /**
   * Takes the thread's next pending run (when none of its runs is in the log and going) and starts
   * it from the state the runs before it left. Returns the run it started.
   */
  private async dispatch(threadId: string, trace?: Context): Promise<string | undefined> {
    const next = await this.db.transaction().execute(async (trx) => {
      if (!(await this.threads.lock(trx, threadId))) return undefined;
      const next = nextThreadRun((await this.threads.runs(threadId, trx)).map(slotOf));
      if (next) await this.threads.setStatus(trx, [next.run.runId], 'starting');
      return next;
    });
    if (!next) return undefined;
    const {
      run: { row },
      progressOf,
    } = next;
    const request = row.request as PendingRequest;
    const run = { runId: row.run_id, threadId, position: row.position, workflow: row.workflow, strategy: row.strategy as never };
    try {
      await this.startNow(request.caller, run, request.body, trace, request.rollsBack, progressOf);
      await this.threads.startedAs(row.run_id, 'queued');
      return row.run_id;
    } catch (e) {
      const failure = failedForGood(e);
      if (!failure) this.logger.warn({ err: e, threadId, runId: row.run_id }, "could not start a thread's next run; trying again");
      await this.threads.startedAs(row.run_id, failure ? 'failed' : 'pending', failure);
      return undefined;
    }
  }

  /** A start whose gateway died midway: in the log already (the projection moves it on), or pending again. */
  private async recoverStaleStarts(): Promise<void> {
    for (const row of await this.threads.staleStarts())
      await this.threads.startedAs(row.run_id, (await lastEventOf(this.bus, row.run_id)) ? 'queued' : 'pending');
  }

  private async startNow(
    caller: Principal,
    run: { runId: string; threadId: string; position: number; workflow: string; strategy: ThreadRunBody['multitaskStrategy'] },
    body: ThreadRunBody,
    trace: Context | undefined,
    rollsBack: string[],
    progressOf?: string,
  ): Promise<void> {
    const { state } = await this.threads.state(run.threadId);
    const progress = progressOf ? await this.latestCheckpointState(progressOf) : undefined;
    await this.starter.start(
      caller,
      run.workflow,
      { input: body.input, parameters: body.parameters, version: body.version, webhooks: body.webhooks, state: { ...state, ...progress } },
      undefined,
      trace ?? context.active(),
      {
        runId: run.runId,
        thread: {
          id: run.threadId,
          position: run.position,
          multitaskStrategy: run.strategy,
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

  private async cancelFor(runId: string, by: string, threadId: string, strategy: string, caller: Principal): Promise<void> {
    try {
      await this.canceller.cancel(runId, `run ${by} was started on thread ${threadId} with multitaskStrategy ${strategy}`, caller.actor);
    } catch (e) {
      // Ended meanwhile: nothing to stop.
      if (!(isSpindleError(e) && e.code === 'conflict')) throw e;
    }
  }

  private async requireWorkflow(tenant: string, body: ThreadRunBody): Promise<void> {
    if (await this.catalog.find(tenant, body.workflow, body.version)) return;
    if (body.version !== undefined && (await this.catalog.find(tenant, body.workflow)))
      throw new SpindleError('version_not_found', `workflow "${body.workflow}" has no version ${body.version}`);
    throw new SpindleError('workflow_not_found', `no workflow named "${body.workflow}"`);
  }
}

const acceptedRun = (
  run: { runId: string; threadId: string; position: number; workflow: string },
  status: 'queued' | 'pending',
): ThreadRunAccepted => ({
  runId: run.runId,
  threadId: run.threadId,
  workflow: run.workflow,
  position: run.position,
  status,
  location: `/v1/runs/${run.runId}`,
});

const toErrorBody = (e: unknown) => (isSpindleError(e) ? { code: e.code, message: e.message } : { code: 'internal', message: String(e) });

/** A row as the plans read it, the row itself kept for the start. */
const slotOf = (row: ThreadRunRow) => ({ runId: row.run_id, status: row.status, position: row.position, strategy: row.strategy, row });
