import { DEFAULT_TENANT, readsOnly, type RunEvent } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Projection } from '@spindle/projection-kit';
import { admissionStateAfter, type AdmissionState } from '@spindle/projections';
import { sql, type Transaction } from 'kysely';
import type { AdmissionRepository, QueuedRun } from './admission.repository';

/**
 * The admission's view of the log: a queued run waits (the gateway usually queued it itself a
 * moment before), starts and resumes make it running, waiting for a person pauses it, its end
 * removes it. Only the admission moves a run from waiting to admitted.
 */
export class AdmissionProjection implements Projection<GatewayTables> {
  readonly name = 'admission';
  /** A queued run's tenant; every other move is told by the event's type. */
  readonly reads = readsOnly(['run.queued']);

  constructor(
    readonly durable: string,
    private readonly rows: AdmissionRepository,
  ) {}

  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const queued: QueuedRun[] = [];
    const last = new Map<string, AdmissionState>();
    for (const e of events) {
      if (e.type === 'run.queued') queued.push({ runId: e.runId, tenant: e.data.tenant ?? DEFAULT_TENANT, queuedAt: e.at, trace: null });
      const state = admissionStateAfter[e.type];
      if (state !== null) last.set(e.runId, state);
    }
    await this.rows.enqueue(trx, queued);
    const byState = new Map<AdmissionState, string[]>();
    for (const [runId, state] of last) byState.set(state, [...(byState.get(state) ?? []), runId]);
    await this.rows.setState(trx, byState.get('running') ?? [], 'running');
    await this.rows.setState(trx, byState.get('paused') ?? [], 'paused');
    await this.rows.remove(trx, byState.get('done') ?? []);
  }

  async reset(trx: Transaction<GatewayTables>): Promise<void> {
    await sql`truncate table run_admissions, tenant_dispatch`.execute(trx);
  }

  async erase(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    await trx
      .deleteFrom('run_admissions')
      .where('run_id', 'in', [...runIds])
      .execute();
  }
}
