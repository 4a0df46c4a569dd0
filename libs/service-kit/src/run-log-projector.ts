import type { JsMsg } from '@nats-io/jetstream';
import { deadLetter, pullBatches, resolvePayload, type Bus } from '@spindle/bus';
import { runEventSchema, type RunEvent } from '@spindle/contracts';
import type { Logger } from 'pino';

export interface RunLogProjectorOptions {
  service: string;
  durable: string;
  /** Applies a batch of valid events (in stream order) in one transaction; must be idempotent. */
  apply(events: Array<{ event: RunEvent; streamSeq: number }>): Promise<void>;
}

/**
 * A durable consumer over every run's log for a projection: validates each message (a bad
 * one is dead-lettered with a log line, never crashing the loop), applies the valid ones as a
 * batch, and acknowledges them only after they are committed.
 */
export class RunLogProjector {
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;

  constructor(private readonly bus: Bus, private readonly logger: Logger, private readonly opts: RunLogProjectorOptions) {}

  start(): void {
    const { names } = this.bus;
    this.loop = pullBatches(
      this.bus,
      { stream: names.eventsStream, durable: this.opts.durable, filterSubject: names.eventsWildcard, ackWaitMs: 30_000 },
      (batch) => this.handle(batch),
      { signal: this.stopping.signal, lingerMs: 50, onError: (e) => this.logger.error({ err: e }, `${this.opts.service}: projecting run events failed; retrying`) },
    );
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const valid: Array<{ event: RunEvent; streamSeq: number; msg: JsMsg }> = [];
    for (const msg of batch) {
      const reason = invalidReason(msg, await resolvePayload(this.bus, msg.data).catch(() => undefined));
      if (typeof reason === 'string') {
        this.logger.warn({ subject: msg.subject, streamSeq: msg.seq, reason }, 'invalid run event; dead-lettered');
        await deadLetter(this.bus, this.opts.service, msg, reason);
      } else {
        valid.push({ event: reason, streamSeq: msg.seq, msg });
      }
    }
    if (valid.length > 0) await this.opts.apply(valid.map(({ event, streamSeq }) => ({ event, streamSeq })));
    for (const { msg } of valid) msg.ack();
  }
}

function invalidReason(msg: JsMsg, data: Uint8Array | undefined): RunEvent | string {
  if (!data) return 'its payload is missing from the object store';
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const parsed = runEventSchema.safeParse(json);
  if (!parsed.success) return parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  const event = parsed.data as RunEvent;
  const subjectRunId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
  if (subjectRunId !== event.runId) return `runId ${event.runId} does not match subject ${msg.subject}`;
  return event;
}
