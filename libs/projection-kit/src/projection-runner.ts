import {
  deadLetter,
  decodeRunMessage,
  ensureDurable,
  pullBatches,
  readRunLog,
  type Bus,
  type JsMsg,
  type DurableSpec,
  type LogCursorState,
} from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import type { ProjectionProgressTables } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely, Transaction } from 'kysely';
import type { Registry } from 'prom-client';
import { ProjectionMetrics } from './projection-metrics';
import type { Projection } from './projection';
import { planRunBatch, type Delivered, type RunBatchPlan } from './run-batch-plan';
import {
  endsOf,
  forgetProgress,
  loadProgress,
  lockRuns,
  progressTables,
  recordProgress,
  recordProgressAndCommit,
  runsQueuedBefore,
} from './run-progress';

/**
 * How long a projection that nobody reads live (checkpoint, approval) gathers a batch after its
 * first message: a run's `run.queued` and the runner's first message usually land in one
 * transaction (per run of a 50-node chain, 20 at a time: 0.50 → 0.40 transactions in the
 * checkpoint projection, 0.52 → 0.44 in the approval one). The trace recorder does not: its lag
 * is what a user sees in the runs list, and it has a target (p99 < 100 ms at 2,000 events/s).
 */
export const PROJECTION_GATHER_MS = 20;

export interface ProjectionRunnerOptions {
  /** Messages per batch (one transaction). */
  batchSize?: number;
  /** After a small batch, wait this long so a trickle is applied in batches (a function: asked after each batch). */
  lingerMs?: number | (() => number);
  /** Hold a batch's first message this long for what follows it (see `pullBatches`). */
  gatherMs?: number;
  /** Told what each committed batch applied, and why messages were dead-lettered. */
  onBatch?: (batch: AppliedBatch) => void;
  onDeadLetter?: (kind: string) => void;
  /** The service's registry: the projection's counters, apply lag and consumer backlog go there. */
  metrics?: Registry;
  /** Runs queued longer ago than this are erased from the projection, on the log's own clock (`SPINDLE_RETENTION_DAYS`). */
  retentionMs?: number;
}

/** What one batch did: events folded for the first time, and the runs they belong to. */
export interface AppliedBatch {
  applied: number;
  runIds: string[];
  /** The events folded for the first time, each run's in seq order. */
  events: RunEvent[];
}

/**
 * The one loop every projection runs on: pulls the events stream on the projection's durable,
 * decodes each message (what is not a run event is dead-lettered), orders each run's events
 * against how far it is applied (repeats settled, gaps filled from the log itself, anything after
 * the end or outside the log dead-lettered), folds them in one transaction together with the
 * progress, and acknowledges only after the commit.
 */
export class ProjectionRunner<DB extends ProjectionProgressTables> {
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;
  private readonly lockClass: number;
  private readonly metrics?: ProjectionMetrics;

  constructor(
    private readonly bus: Bus,
    private readonly db: Kysely<DB>,
    private readonly projection: Projection<DB>,
    private readonly logger: Logger,
    private readonly opts: ProjectionRunnerOptions = {},
  ) {
    this.lockClass = lockClassOf(projection.name);
    this.metrics = opts.metrics && ProjectionMetrics.of(opts.metrics);
    this.metrics?.watchConsumer(projection.name, bus, this.spec);
  }

  get spec(): DurableSpec {
    const { names } = this.bus;
    return { stream: names.eventsStream, durable: this.projection.durable, filterSubject: names.eventsWildcard, ackWaitMs: 30_000 };
  }

  /** Creates the durable consumer (so a start-up without one fails at once), then runs the loop. */
  async start(): Promise<void> {
    await ensureDurable(this.bus, this.spec);
    this.startLoop();
    if (this.opts.retentionMs !== undefined) this.startRetention(this.opts.retentionMs);
  }

  /** Erases the runs' rows and progress (a data-protection erase); safe to repeat. */
  async eraseRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      await lockRuns(progressTables(trx), this.lockClass, runIds);
      await this.projection.erase(trx, runIds);
      await forgetProgress(progressTables(trx), runIds);
    });
  }

  /** Erases every run queued before `before`, a batch at a time; returns how many. */
  async expireBefore(before: Date, batch = 500): Promise<number> {
    let expired = 0;
    for (;;) {
      const runIds = await runsQueuedBefore(progressTables(this.db), before, batch);
      await this.eraseRuns(runIds);
      expired += runIds.length;
      if (runIds.length < batch) return expired;
    }
  }

  /** Expires old runs now and then: every quarter of the retention, at most hourly, and once soon after start. */
  private startRetention(retentionMs: number): void {
    const everyMs = Math.max(1_000, Math.min(retentionMs / 4, 3_600_000));
    const sweep = () =>
      this.expireBefore(new Date(Date.now() - retentionMs))
        .then((n) => n > 0 && this.logger.info({ runs: n }, `${this.projection.name}: expired runs past the retention`))
        .catch((e: unknown) => this.logger.warn({ err: e }, `${this.projection.name}: expiring old runs failed; trying again later`));
    const timer = setInterval(() => void sweep(), everyMs);
    timer.unref();
    this.stopping.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  }

  /** Nest calls these on a provider: the projection runs for as long as its module lives. */
  onModuleInit(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  private startLoop(): void {
    this.loop = pullBatches(this.bus, this.spec, async (batch) => void (await this.handle(batch)), {
      signal: this.stopping.signal,
      batchSize: this.opts.batchSize ?? 500,
      lingerMs: this.opts.lingerMs ?? 0,
      gatherMs: this.opts.gatherMs ?? 0,
      onError: (e) => this.logger.error({ err: e }, `${this.projection.name}: projecting run events failed; retrying`),
      onStall: (reason) => this.logger.warn({ reason }, `${this.projection.name}: its consume stalled; pulling again`),
    });
  }

  /** The batch in hand commits and is acknowledged before this resolves. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  /** Applies one pulled batch; throws (after asking for redelivery) only when the store or the bus failed. */
  async handle(batch: readonly JsMsg[]): Promise<AppliedBatch> {
    const byRun = new Map<string, Array<Delivered<JsMsg>>>();
    for (const msg of batch) {
      const decoded = await decodeRunMessage(this.bus, msg, this.projection.reads).catch((e: unknown) => redeliver(batch, e));
      if (!decoded.ok) {
        await this.deadLetter(msg, decoded.kind, decoded.reason);
        continue;
      }
      // A writer's batch is one message of several events of one run: each is planned, the message settled once.
      const runId = decoded.events[0]!.runId;
      const list = byRun.get(runId) ?? [];
      for (const event of decoded.events) list.push({ event, item: msg });
      byRun.set(runId, list);
    }
    if (byRun.size === 0) return { applied: 0, runIds: [], events: [] };
    let plans: Map<string, RunBatchPlan<JsMsg>>;
    try {
      plans = await this.db.transaction().execute((trx) => this.applyRuns(trx, byRun));
    } catch (e) {
      if (!isDataRejection(e)) return redeliver(batch, e);
      // Some event's content is refused (not an outage): find it run by run, keep the rest.
      plans = await this.applyEachRun(byRun);
    }
    return this.settle(plans);
  }

  private async applyRuns(
    trx: Transaction<DB>,
    byRun: ReadonlyMap<string, Array<Delivered<JsMsg>>>,
  ): Promise<Map<string, RunBatchPlan<JsMsg>>> {
    const runIds = [...byRun.keys()];
    await lockRuns(progressTables(trx), this.lockClass, runIds);
    const progress = await loadProgress(progressTables(trx), runIds);
    const plans = new Map<string, RunBatchPlan<JsMsg>>();
    for (const [runId, delivered] of byRun)
      plans.set(runId, await this.plan(runId, progress.get(runId) ?? { lastSeq: 0, ended: false }, delivered));
    const events = [...plans.values()].flatMap((p) => p.apply);
    if (events.length === 0) return plans;
    await this.projection.apply(trx, events);
    // The last statement: the progress goes with COMMIT (the round trip a batch would spend on it alone).
    await recordProgressAndCommit(progressTables(trx), endsOf(events));
    return plans;
  }

  /** Plans a run's slice; a gap is filled from the log itself, read from just after the applied part. */
  private async plan(runId: string, progress: LogCursorState, delivered: Array<Delivered<JsMsg>>): Promise<RunBatchPlan<JsMsg>> {
    const plan = planRunBatch(progress, delivered);
    if (!plan.gap) return plan;
    const { events } = await readRunLog(this.bus, runId, progress.lastSeq);
    return planRunBatch(progress, delivered, events);
  }

  private async applyEachRun(byRun: ReadonlyMap<string, Array<Delivered<JsMsg>>>): Promise<Map<string, RunBatchPlan<JsMsg>>> {
    const plans = new Map<string, RunBatchPlan<JsMsg>>();
    for (const [runId, delivered] of byRun) {
      try {
        const one = await this.db.transaction().execute((trx) => this.applyRuns(trx, new Map([[runId, delivered]])));
        plans.set(runId, one.get(runId)!);
      } catch (e) {
        if (!isDataRejection(e))
          return redeliver(
            delivered.map((d) => d.item),
            e,
          );
        plans.set(runId, await this.skipRefused(runId, delivered, e));
      }
    }
    return plans;
  }

  /**
   * The database refuses one of this run's events: apply the run event by event, and move past
   * the one refused (dead-lettered, loudly: the run's projection lacks it) so the run does not stall.
   */
  private async skipRefused(runId: string, delivered: Array<Delivered<JsMsg>>, cause: unknown): Promise<RunBatchPlan<JsMsg>> {
    const plan = await this.db.transaction().execute(async (trx) => {
      await lockRuns(progressTables(trx), this.lockClass, [runId]);
      return this.plan(runId, (await loadProgress(progressTables(trx), [runId])).get(runId) ?? { lastSeq: 0, ended: false }, delivered);
    });
    const refused = new Map<number, string>();
    for (const event of plan.apply) {
      const end = new Map([[runId, { seq: event.seq, type: event.type }]]);
      try {
        await this.db.transaction().execute(async (trx) => {
          await this.projection.apply(trx, [event]);
          await recordProgress(progressTables(trx), end);
        });
      } catch (e) {
        if (!isDataRejection(e)) throw e;
        refused.set(event.seq, (e as Error).message);
        await this.db.transaction().execute((trx) => recordProgress(progressTables(trx), end));
        this.logger.error(
          { err: e, runId, seq: event.seq, cause },
          `${this.projection.name}: the database refused event ${runId}:${event.seq}; its projection goes on without it`,
        );
      }
    }
    const isRefused = (d: Delivered<JsMsg>) => refused.has(d.event.seq);
    return {
      ...plan,
      settled: plan.settled.filter((msg) => !delivered.some((d) => d.item === msg && isRefused(d))),
      rejected: [
        ...plan.rejected,
        ...delivered.filter(isRefused).map((d) => ({
          item: d.item,
          kind: 'rejected_by_database' as const,
          reason: `rejected by the database: ${refused.get(d.event.seq)}`,
        })),
      ],
    };
  }

  private async settle(plans: ReadonlyMap<string, RunBatchPlan<JsMsg>>): Promise<AppliedBatch> {
    let applied = 0;
    const events: RunEvent[] = [];
    for (const plan of plans.values()) {
      // A message with an event that is not part of the log is dead-lettered once, whatever else it held.
      const rejected = new Map(plan.rejected.map((r) => [r.item, r]));
      for (const msg of new Set(plan.settled)) if (!rejected.has(msg)) msg.ack();
      for (const r of rejected.values()) await this.deadLetter(r.item, r.kind, r.reason);
      applied += plan.apply.length;
      events.push(...plan.apply);
      this.metrics?.committed(this.projection.name, plan.apply);
    }
    const result = { applied, runIds: [...plans].filter(([, p]) => p.apply.length > 0).map(([runId]) => runId), events };
    this.opts.onBatch?.(result);
    return result;
  }

  private async deadLetter(msg: JsMsg, kind: string, reason: string): Promise<void> {
    this.logger.warn(
      { subject: msg.subject, streamSeq: msg.seq, reason },
      `${this.projection.name}: dead-lettering a message of ${msg.subject}: ${reason}`,
    );
    try {
      await deadLetter(this.bus, this.projection.name, msg, reason);
      this.opts.onDeadLetter?.(kind);
      this.metrics?.deadLettered(this.projection.name, kind);
    } catch (e) {
      // Not lost: it comes back and is dead-lettered once the dead-letter stream takes it.
      this.logger.error({ err: e, subject: msg.subject }, 'could not dead-letter; will retry');
      msg.nak(1_000);
    }
  }
}

/** Postgres refused the data itself (SQLSTATE class 22 data exception, 54 limit exceeded). */
export function isDataRejection(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|54)/.test(code);
}

function redeliver(messages: readonly JsMsg[], cause: unknown): never {
  // Redelivered at once, ahead of newer messages, so the log keeps arriving nearly in order.
  for (const m of new Set(messages)) m.nak();
  throw cause;
}

/** A stable 16-bit advisory-lock class per projection name. */
function lockClassOf(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) & 0x7fff;
  return h;
}
