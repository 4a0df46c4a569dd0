import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import { signWebhook } from './webhook-signature';
import { guardedLookup, literalRefusal, type WebhookTargetPolicy } from './webhook-target';
import type { DueDelivery, WebhookRepository } from './webhook.repository';

export interface WebhookDeliveryOptions {
  /** The first retry's delay; each later one doubles it, up to an hour. */
  readonly retryBaseMs: number;
  /** How long a delivery is retried before it is dead (24 h). */
  readonly retryForMs: number;
  /** How long one attempt may take. */
  readonly timeoutMs: number;
}

const MAX_RETRY_DELAY_MS = 3_600_000;
const RESPONSE_EXCERPT_BYTES = 2_048;
const BATCH = 20;

/**
 * Attempts due deliveries: each a signed POST of the event's JSON, answered with a 2xx or tried
 * again later (exponential back-off with jitter) until its time runs out and it is dead. A
 * delivery is leased while attempted, so several gateways share the work without doubling it.
 */
export class WebhookDeliverer {
  constructor(
    private readonly deliveries: WebhookRepository,
    private readonly policy: WebhookTargetPolicy,
    private readonly opts: WebhookDeliveryOptions,
    private readonly logger: Logger,
  ) {}

  /** One pass: attempts what is due, a batch at a time, until nothing is. */
  async deliverDue(): Promise<void> {
    for (;;) {
      const due = await this.deliveries.takeDue(BATCH, this.opts.timeoutMs * 2);
      if (due.length === 0) return;
      await Promise.all(due.map((d) => this.attempt(d)));
    }
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const at = new Date();
    const body = JSON.stringify(delivery.payload);
    const answer = await this.post(delivery, body, at);
    const durationMs = Date.now() - at.getTime();
    const ok = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
    const attempt = delivery.attempts + 1;
    const retryAt = new Date(Date.now() + this.backoff(attempt));
    const expired = retryAt.getTime() - delivery.createdAt.getTime() > this.opts.retryForMs;
    const outcome = ok ? { status: 'delivered' as const } : expired ? { status: 'dead' as const } : { status: 'pending' as const, retryAt };
    if (outcome.status === 'dead')
      this.logger.warn({ deliveryId: delivery.id, attempts: attempt }, 'webhook delivery is dead: no 2xx in time');
    await this.deliveries.recordAttempt(delivery, { at, durationMs, ...answer }, outcome);
  }

  /** 2^(n-1) × the base, ± 20 %, at most an hour. */
  private backoff(attempt: number): number {
    const delay = Math.min(this.opts.retryBaseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
    return Math.round(delay * (0.8 + Math.random() * 0.4));
  }

  private post(
    delivery: DueDelivery,
    body: string,
    at: Date,
  ): Promise<{ statusCode: number | null; error: string | null; response: string | null }> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (answer: { statusCode: number | null; error: string | null; response: string | null }) => {
        if (settled) return;
        settled = true;
        resolve(answer);
      };
      const url = new URL(delivery.url);
      const refused = literalRefusal(url, this.policy);
      if (refused) return done({ statusCode: null, error: refused, response: null });
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const event = delivery.payload as { id: string };
      const req = send(url, {
        method: 'POST',
        lookup: guardedLookup(this.policy),
        timeout: this.opts.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Spindle-Webhooks/1',
          'spindle-signature': signWebhook(delivery.secret, body, Math.floor(at.getTime() / 1_000)),
          'spindle-event-id': event.id,
          'spindle-delivery-id': delivery.id,
        },
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.opts.timeoutMs} ms`)));
      req.on('error', (e) => done({ statusCode: null, error: e.message, response: null }));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('error', (e) => done({ statusCode: res.statusCode ?? null, error: e.message, response: null }));
        res.on('end', () =>
          done({
            statusCode: res.statusCode ?? null,
            error: null,
            response: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
          }),
        );
      });
      req.end(body);
    });
  }
}
