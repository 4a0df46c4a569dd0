import { lastEventOf, purgeRunLog, query, type Bus } from '@spindle/bus';
import { isTerminalEvent, SpindleError, type EraseRunResult, type QueryService } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import type { RunLogLoss } from './run-log-loss';
import type { RunReads } from './run-reads.service';

/** The projections that hold rows of a run (the dispatcher's: admission, threads, webhook deliveries). */
const PROJECTION_SERVICES: readonly QueryService[] = ['trace', 'checkpoint', 'approval', 'dispatcher'];

/**
 * Erases an ended run everywhere (a data-protection request): first every projection (trace,
 * checkpoints and node results, inbox, the control plane's), each once it has applied the run's last
 * event, then the gateway's idempotency keys for it, then its log and payloads in JetStream. The
 * log goes last, so a failure part-way leaves a run that is still found and a DELETE that can
 * simply be repeated; once it returns, no reader finds the run. Its audit entry says who erased it.
 * A run whose log a lost store took is erased from the projections as they stand.
 */
export class RunEraser {
  constructor(
    private readonly bus: Bus,
    private readonly db: Kysely<GatewayTables>,
    private readonly reads: RunReads,
    private readonly projectionWaitMs: number,
    private readonly loss: RunLogLoss,
  ) {}

  async erase(runId: string): Promise<{ lastSeq: number; messages: number; payloads: number; logLost?: true }> {
    this.reads.refuseExpired(runId);
    const last = await this.loss.read(() => lastEventOf(this.bus, runId));
    if (!last) {
      // A run whose log went with a lost store: what the projections kept of it is erased as it stands.
      if (await this.loss.hasLostLog(runId)) return { ...(await this.eraseEverywhere(runId, 0)), logLost: true };
      throw new SpindleError('run_not_found', `no run with id "${runId}"`);
    }
    if (!isTerminalEvent(last.event)) throw new SpindleError('run_active', `run ${runId} has not ended: cancel it first, then erase it`);
    return this.eraseEverywhere(runId, last.event.seq);
  }

  /** Every projection once it has applied the log to `waitForSeq`, the run's keys, then its log and payloads. */
  private async eraseEverywhere(runId: string, waitForSeq: number): Promise<{ lastSeq: number; messages: number; payloads: number }> {
    const timeoutMs = this.projectionWaitMs + 5_000;
    await Promise.all(
      PROJECTION_SERVICES.map((service) => query<EraseRunResult>(this.bus, service, 'eraseRun', { runId, waitForSeq }, timeoutMs)),
    );
    await this.db.deleteFrom('idempotency_keys').where('run_id', '=', runId).execute();
    const purged = await purgeRunLog(this.bus, runId);
    return { lastSeq: waitForSeq, ...purged };
  }
}
