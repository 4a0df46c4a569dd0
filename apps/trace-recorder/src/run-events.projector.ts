import { deadLetter, decodeRunEvent, type Bus } from '@spindle/bus';
import type { Logger } from '@spindle/telemetry';
import type { JsMsg } from '@nats-io/jetstream';
import type { DeadLetterKind, TraceMetrics } from './trace.metrics';
import type { AppliedBatch, LoggedEvent, TraceRepository } from './trace.repository';

const SERVICE = 'trace-recorder';

interface Delivery {
  msg: JsMsg;
  item: LoggedEvent;
}

/**
 * Turns one pulled batch of the events stream into one `applyBatch` and acks each message only
 * after the commit. A message that is not a run event goes to the dead-letter stream; one bad
 * message never blocks or crashes the loop. Shared by the live consumer and the rebuild.
 */
export class RunEventsProjector {
  constructor(
    private readonly bus: Bus,
    private readonly repository: TraceRepository,
    private readonly metrics: TraceMetrics,
    private readonly logger: Logger,
  ) {}

  /** Throws (after asking for redelivery) only when the store fails for a reason not in the data. */
  async handle(batch: readonly JsMsg[]): Promise<AppliedBatch> {
    const deliveries: Delivery[] = [];
    const rejected: Array<{ msg: JsMsg; kind: DeadLetterKind; reason: string }> = [];
    for (const msg of batch) {
      // Large payloads live in the object store: the projection (and so the export) stores them whole.
      const decoded = await decodeRunEvent(this.bus, msg);
      if (decoded.ok) deliveries.push({ msg, item: { event: decoded.event, streamSeq: msg.seq } });
      else rejected.push({ msg, kind: decoded.kind, reason: decoded.reason });
    }
    const result = await this.apply(deliveries);
    for (const r of rejected) await this.deadLetter(r.msg, r.kind, r.reason);
    return result;
  }

  private async apply(deliveries: Delivery[]): Promise<AppliedBatch> {
    if (deliveries.length === 0) return { applied: 0, runIds: [] };
    try {
      return this.applied(deliveries, await this.repository.applyBatch(deliveries.map((d) => d.item)));
    } catch (e) {
      if (!isDataRejection(e)) throw redeliver(deliveries, e);
      // Some event's content is refused (not a database outage): find it, keep the rest.
      return this.applyOneByOne(deliveries);
    }
  }

  private async applyOneByOne(deliveries: Delivery[]): Promise<AppliedBatch> {
    let applied = 0;
    const runIds = new Set<string>();
    for (const [i, d] of deliveries.entries()) {
      try {
        const result = this.applied([d], await this.repository.applyBatch([d.item]));
        applied += result.applied;
        result.runIds.forEach((id) => runIds.add(id));
      } catch (e) {
        if (!isDataRejection(e)) throw redeliver(deliveries.slice(i), e);
        // The run's projection now stops before this seq: loud, because it needs a person.
        this.logger.error({ err: e, runId: d.item.event.runId, seq: d.item.event.seq }, `the database refused event ${d.item.event.runId}:${d.item.event.seq}`);
        await this.deadLetter(d.msg, 'rejected_by_database', `rejected by the database: ${(e as Error).message}`);
      }
    }
    return { applied, runIds: [...runIds] };
  }

  private applied(deliveries: Delivery[], result: AppliedBatch): AppliedBatch {
    for (const d of deliveries) d.msg.ack();
    this.metrics.eventsApplied.inc(result.applied);
    return result;
  }

  private async deadLetter(msg: JsMsg, kind: DeadLetterKind, reason: string): Promise<void> {
    this.logger.warn({ subject: msg.subject, streamSeq: msg.seq, reason }, `dead-lettering a message of ${msg.subject}: ${reason}`);
    try {
      await deadLetter(this.bus, SERVICE, msg, reason);
      this.metrics.deadLetters.inc({ kind });
    } catch (e) {
      // Not lost: it comes back and is dead-lettered once the DLQ stream takes it.
      this.logger.error({ err: e, subject: msg.subject }, 'could not dead-letter; will retry');
      msg.nak(1_000);
    }
  }
}

/** Postgres refused the data itself (SQLSTATE class 22 data exception, 54 limit exceeded). */
function isDataRejection(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|54)/.test(code);
}

function redeliver(deliveries: Delivery[], cause: unknown): unknown {
  // Redelivered at once, ahead of newer messages, so the log keeps arriving in order.
  for (const d of deliveries) d.msg.nak();
  return cause;
}
