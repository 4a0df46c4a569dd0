import { publishRunCommand, type Bus } from '@spindle/bus';
import { coalescedWrites, type GatewayTables } from '@spindle/db';
import { pickAdmissions } from '@spindle/projections';
import { extractFromRecord } from '@spindle/telemetry';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from '@spindle/telemetry';
import type { QuotaDefaults } from './quota-defaults';
import type { AdmissionRepository, QueuedRun } from './admission.repository';

/** An admitted run not seen starting for this long gets its start command again (same message id). */
const RESEND_AFTER_MS = 60_000;

export interface QueuePosition {
  /** 1 for the next of its tenant's runs to be admitted. */
  position: number;
  /** Why it waits: its tenant is at `maxRunning`, or the runners' queue is full. */
  reason: 'tenant_limit' | 'capacity';
}

/**
 * Hands queued runs to the runners, fairly: at most `dispatchWindow` runs sit admitted and not
 * started at any time, each tenant has at most its `maxRunning` admitted or running, and free
 * places go round robin over the tenants that wait. So the runners' queue stays short and one
 * tenant's backlog waits here, in its own line, instead of in front of everyone else's runs.
 */
export class RunAdmission {
  private running?: Promise<void>;
  private again = false;
  /** Runs may wait (this process queued one, or a pass left some); when false, the table is asked. */
  private mayWait = true;
  /** Runs handed over while a batch is being queued: the next batch, one transaction for all of them. */
  private readonly queueTogether = coalescedWrites((runs: QueuedRun[]) => this.queueBatch(runs));

  constructor(
    private readonly bus: Bus,
    private readonly db: Kysely<GatewayTables>,
    private readonly rows: AdmissionRepository,
    private readonly quotas: QuotaDefaults,
    private readonly logger: Logger,
  ) {}

  /**
   * Queues a run the gateway just wrote `run.queued` for. On a quiet system it is admitted in the
   * same statement and its command sent at once; otherwise it waits its turn. Starts that arrive
   * while a batch is being queued are queued together, in one transaction holding the lock once:
   * one at a time, twenty concurrent starts queued in line behind the lock, each for four round
   * trips (their commands reached the runners about 40 ms apart).
   */
  enqueue(run: QueuedRun): Promise<void> {
    return this.queueTogether(run);
  }

  private async queueBatch(runs: readonly QueuedRun[]): Promise<void> {
    if (runs.length === 1) return this.queueOne(runs[0]!);
    const { admitted, stillWaiting } = await this.db.transaction().execute(async (trx) => {
      await this.rows.lock(trx);
      await this.rows.enqueue(trx, runs);
      return this.admitFairlyIn(trx);
    });
    this.mayWait = stillWaiting;
    await this.send(admitted);
  }

  private async queueOne(run: QueuedRun): Promise<void> {
    const limits = { window: this.quotas.dispatchWindow, defaultMaxRunning: this.quotas.maxRunning };
    const state = await this.rows.enqueueAndAdmit(this.db, run, limits);
    if (state === 'admitted') return this.send([run]);
    this.mayWait = true;
    await this.admit();
  }

  /** Whether runs may be waiting for room, as far as this process knows (see `mayWait`). */
  get runsMayWait(): boolean {
    return this.mayWait;
  }

  /**
   * A run started, paused or ended (room freed): a pass, if anything may be waiting for it. The
   * table is asked when this process knows of nothing waiting: the gateways queue runs, and the
   * dispatcher, which sees the room freed, queued none of them.
   */
  roomFreed(): void {
    void this.admitIfWaiting().catch((err: unknown) => this.logger.warn({ err }, 'admission pass failed'));
  }

  /** The slow tick: a pass if runs wait (here or queued by another process), and lost commands sent again. */
  async tick(): Promise<void> {
    await this.admitIfWaiting();
    await this.resendStale();
  }

  private async admitIfWaiting(): Promise<void> {
    if (this.mayWait || (await this.rows.anyWaiting(this.db))) await this.admit();
  }

  /**
   * Admits as many waiting runs as there is room for and sends their start commands. Calls that
   * arrive while one runs are folded into one more pass, so nothing waits on a stale picture.
   */
  admit(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          const { admitted, stillWaiting } = await this.admitFairly();
          this.mayWait = stillWaiting;
          await this.send(admitted);
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Sends the start command again for admitted runs that never started (a process died before sending it). */
  async resendStale(): Promise<void> {
    await this.send(await this.rows.restampStale(this.db, RESEND_AFTER_MS, new Date()));
  }

  async positionOf(runId: string): Promise<QueuePosition | undefined> {
    const found = await this.rows.positionOf(this.db, runId);
    if (!found) return undefined;
    const queue = (await this.rows.tenantQueues(this.db)).find((q) => q.tenant === found.tenant);
    const limit = queue?.maxRunning ?? this.quotas.maxRunning;
    return { position: found.ahead + 1, reason: queue && queue.active >= limit ? 'tenant_limit' : 'capacity' };
  }

  private async admitFairly(): Promise<{ admitted: QueuedRun[]; stillWaiting: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      await this.rows.lock(trx);
      return this.admitFairlyIn(trx);
    });
  }

  /** In a transaction holding the lock: admits the waiting runs there is room for, fairly. */
  private async admitFairlyIn(trx: Transaction<GatewayTables>): Promise<{ admitted: QueuedRun[]; stillWaiting: boolean }> {
    const free = this.quotas.dispatchWindow - (await this.rows.admittedCount(trx));
    if (free <= 0) return { admitted: [], stillWaiting: await this.rows.anyWaiting(trx) };
    const queues = (await this.rows.tenantQueues(trx)).map((q) => ({
      tenant: q.tenant,
      waiting: q.waiting,
      active: q.active,
      limit: q.maxRunning ?? this.quotas.maxRunning,
      lastAdmittedAt: q.lastAdmittedAt?.getTime() ?? null,
    }));
    const perTenant = new Map<string, number>();
    for (const tenant of pickAdmissions(queues, free)) perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
    const now = new Date();
    const admitted: QueuedRun[] = [];
    for (const [tenant, count] of perTenant) admitted.push(...(await this.rows.admitOldest(trx, tenant, count, now)));
    const waiting = queues.reduce((n, q) => n + q.waiting, 0);
    return { admitted, stillWaiting: waiting > admitted.length };
  }

  /** After the commit: a command that cannot be sent now is sent again by `resendStale`. */
  private async send(runs: readonly QueuedRun[]): Promise<void> {
    await Promise.all(runs.map((run) => this.sendOne(run)));
  }

  private async sendOne(run: QueuedRun): Promise<void> {
    await publishRunCommand(
      this.bus,
      { type: 'run.start', runId: run.runId, issuedAt: new Date().toISOString() },
      run.trace ? extractFromRecord(run.trace) : undefined,
    ).catch((err: unknown) => this.logger.warn({ err, runId: run.runId }, 'could not send a start command; it is sent again later'));
  }
}
