import type { Context } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import {
  isSpindleError,
  SpindleError,
  threadRunBodySchema,
  threadStateBodySchema,
  type Principal,
  type ThreadRunAccepted,
  type ThreadRunBody,
  type ThreadState,
  parseBody,
} from '@spindle/contracts';
import {
  isActive,
  planThreadStart,
  slotOf,
  type ThreadDispatcher,
  type ThreadRepository,
  type WorkflowCatalogRepository,
  type RunCanceller,
  type FileLibrary,
} from '@spindle/control-plane';
import { recordStateChange, THREAD_STATE_WORKFLOW } from './thread-state-change';
import type { GatewayTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ulid } from 'ulid';

/**
 * Runs on threads, on the request path: a start on a busy thread follows its `multitaskStrategy`
 * (`planThreadStart`: 409 `thread_busy`, or the run recorded `pending` and what it stops stopped);
 * the control plane's `ThreadDispatcher` starts it when its turn comes, at once if it is.
 */
export class ThreadRuns {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly threads: ThreadRepository,
    private readonly dispatcher: ThreadDispatcher,
    private readonly canceller: RunCanceller,
    private readonly catalog: WorkflowCatalogRepository,
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly files: FileLibrary,
  ) {}

  /** `beforeDispatch` is handed the new run's id before it can start (a stream that must see all of it joins then). */
  async start(
    caller: Principal,
    threadId: string,
    rawBody: unknown,
    trace: Context,
    options: { beforeDispatch?: (runId: string) => Promise<void> } = {},
  ): Promise<ThreadRunAccepted> {
    const asked = parseBody(threadRunBodySchema, rawBody ?? {});
    // The thread first: another tenant's thread is not found, whatever workflow the body names.
    if (!(await this.threads.find(caller.tenant, threadId))) throw new SpindleError('thread_not_found', `no thread with id "${threadId}"`);
    // Its files now, so an unknown one is the caller's 404 and not a start that fails when its turn comes.
    const body = asked.input === undefined ? asked : { ...asked, input: await this.files.resolve(caller.tenant, asked.input, 'input') };
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
    await options.beforeDispatch?.(run.runId);
    const started = await this.dispatcher.dispatch(threadId, trace);
    return acceptedRun(run, started === run.runId ? 'queued' : 'pending');
  }

  /**
   * Changes the thread's state, recorded as a run of its own (`_thread_state`): `run.queued` and at
   * once `run.completed` with the new state, so the state stays a fold of the log. Refused while
   * the thread is busy, like a start with `reject`.
   */
  async setState(caller: Principal, threadId: string, rawBody: unknown): Promise<ThreadState> {
    const asked = parseBody(threadStateBodySchema, rawBody ?? {});
    const values = (await this.files.resolve(caller.tenant, asked.values, 'values')) as typeof asked.values;
    const body = { ...asked, values };
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
