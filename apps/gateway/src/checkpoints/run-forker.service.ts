import { randomBytes } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { EMPTY_LOG, firstEventOf, lastEventOf, query, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { Logger } from 'pino';
import {
  queueForAdmission,
  type RunAdmission,
  type StartQuotas,
  type IdempotencyKeysRepository,
  createOnce,
  requestHash,
  type Created,
  type FileLibrary,
  missingCheckpointError,
} from '@spindle/control-plane';
import {
  SpindleError,
  type CheckpointQueryResults,
  type ForkAccepted,
  type ForkBody,
  type Principal,
  type RunEvent,
  type RunEventOf,
} from '@spindle/contracts';
import { ulid } from 'ulid';
import { RUN_ID } from '../http/path-params';

/**
 * Forks a run at a checkpoint: a new run whose `run.queued` carries the checkpoint's state (with
 * the patch applied), starts at its frontier, names `forkedFrom`, and may reuse the source's
 * stored node results where a node's input is unchanged. The source run is never touched.
 */
export class RunForker {
  constructor(
    private readonly bus: Bus,
    private readonly keys: IdempotencyKeysRepository,
    private readonly admission: RunAdmission,
    private readonly quotas: StartQuotas,
    private readonly logger: Logger,
    private readonly projectionWaitMs: number,
    private readonly files: Pick<FileLibrary, 'resolve'>,
    private readonly maxEventBytes?: number,
  ) {}

  async checkpoints(runId: string): Promise<CheckpointQueryResults['listCheckpoints']> {
    const lastSeq = await this.lastSeq(runId);
    return this.ask('listCheckpoints', { runId, waitForSeq: lastSeq });
  }

  /** With an Idempotency-Key, a retried fork answers with the run the first one opened. */
  async fork(caller: Principal, sourceRunId: string, asked: ForkBody, idempotencyKey?: string): Promise<Created<ForkAccepted>> {
    // The patch's files as the tenant's references; the checkpoint's own state carries references already.
    const body =
      asked.state === undefined
        ? asked
        : { ...asked, state: (await this.files.resolve(caller.tenant, asked.state, 'state')) as ForkBody['state'] };
    const lastSeq = await this.lastSeq(sourceRunId);
    const { checkpoint, expiredBefore } = await this.ask('getCheckpoint', {
      runId: sourceRunId,
      waitForSeq: lastSeq,
      ...(body.checkpointId ? { checkpointId: body.checkpointId } : {}),
    });
    const { events } = await readRunLog(this.bus, sourceRunId);
    // The log says whether the checkpoint exists; the projection may only be behind, or have purged it.
    if (!checkpoint) throw missingCheckpointError(sourceRunId, events, { checkpointId: body.checkpointId, expiredBefore });
    const queued = events[0] as RunEventOf<'run.queued'>;
    const runId = ulid();
    const forkedFrom = { runId: sourceRunId, seq: checkpoint.seq, checkpointId: checkpoint.checkpointId, forkedBy: caller.actor };
    const accepted: ForkAccepted = {
      runId,
      forkedFrom,
      status: 'queued',
      location: `/v1/runs/${runId}`,
      eventsLocation: `/v1/runs/${runId}/events`,
    };
    const runQueued = async (id: string) => (await firstEventOf(this.bus, id)) !== undefined;
    return createOnce(
      this.keys,
      runQueued,
      caller.tenant,
      idempotencyKey,
      { hash: requestHash(`fork:${sourceRunId}`, asked), runId, accepted },
      async (target) => {
        // Completing a key's orphaned fork: it forks at the checkpoint the key answered, which a newer one may have followed.
        const at = target.accepted.forkedFrom;
        const from =
          at.checkpointId === checkpoint.checkpointId
            ? checkpoint
            : (await this.ask('getCheckpoint', { runId: sourceRunId, waitForSeq: lastSeq, checkpointId: at.checkpointId })).checkpoint;
        if (!from)
          throw new SpindleError(
            'service_unavailable',
            `the checkpoint ${at.checkpointId} of run ${sourceRunId} is not found yet; try again`,
          );
        // Inside: a retry answered from its Idempotency-Key starts nothing, so it takes no quota.
        await this.quotas.admitStart(caller.tenant);
        await new RunLogWriter(this.bus, target.runId, EMPTY_LOG, { maxEventBytes: this.maxEventBytes }).write({
          type: 'run.queued',
          spanId: randomBytes(8).toString('hex'),
          path: 'root',
          data: {
            workflow: queued.data.workflow,
            input: queued.data.input,
            state: { ...from.state, ...(body.state ?? {}) },
            ...(queued.data.parameters ? { parameters: queued.data.parameters } : {}),
            definition: definitionAt(events, from.seq),
            ...(queued.data.subgraphs ? { subgraphs: queued.data.subgraphs } : {}),
            forkedFrom: at,
            tenant: caller.tenant,
            startedBy: caller.actor,
            start: from.frontier,
            cacheRuns: [sourceRunId, ...(queued.data.cacheRuns ?? [])],
          },
        });
        await queueForAdmission(this.admission, { runId: target.runId, tenant: caller.tenant, trace: context.active() }, this.logger);
      },
    );
  }

  private async lastSeq(runId: string): Promise<number> {
    const last = RUN_ID.test(runId) ? await lastEventOf(this.bus, runId) : undefined;
    if (!last) throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    return last.event.seq;
  }

  private ask<Op extends keyof CheckpointQueryResults>(op: Op, payload: unknown): Promise<CheckpointQueryResults[Op]> {
    return query<CheckpointQueryResults[Op]>(this.bus, 'checkpoint', op, payload, this.projectionWaitMs + 5_000);
  }
}

/** The definition the run executed at `seq`: its queued one, or a later version an answer moved it to. */
function definitionAt(events: readonly RunEvent[], seq: number): unknown {
  let definition = (events[0] as RunEventOf<'run.queued'>).data.definition;
  for (const e of events) {
    if (e.seq > seq) break;
    if ((e.type === 'input.answered' || e.type === 'approval.resolved') && e.data.definition !== undefined) definition = e.data.definition;
  }
  return definition;
}
