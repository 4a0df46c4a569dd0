import { nextDeliveryOutcome, type DeliveryRetryPolicy } from './delivery-attempt';
import type { EgressGuard } from '@spindle/egress';
import type { Logger } from '@spindle/telemetry';
import { postWebhook, type WebhookAnswer } from './webhook-post';
import { signWebhook } from '@spindle/contracts';
import type { DueDelivery, WebhookRepository } from './webhook.repository';

export interface WebhookDeliveryOptions extends DeliveryRetryPolicy {
  /** How long one attempt may take. */
  readonly timeoutMs: number;
}

const BATCH = 20;

/**
 * Attempts due deliveries: each a signed POST of the event's JSON, answered with a 2xx or tried
 * again later (exponential back-off with jitter) until its time runs out and it is dead. A
 * delivery is leased while attempted, so several gateways share the work without doubling it.
 */
export class WebhookDeliverer {
  constructor(
    private readonly deliveries: WebhookRepository,
    /** Every delivery connects through it: an internal target is refused at connect, after DNS. */
    private readonly guard: EgressGuard,
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
    const attempt = delivery.attempts + 1;
    const outcome = nextDeliveryOutcome(
      { statusCode: answer.statusCode, attempt, createdAt: delivery.createdAt, now: new Date() },
      this.opts,
    );
    if (outcome.status === 'dead')
      this.logger.warn({ deliveryId: delivery.id, attempts: attempt }, 'webhook delivery is dead: no 2xx in time');
    await this.deliveries.recordAttempt(delivery, { at, durationMs, ...answer }, outcome);
  }

  private post(delivery: DueDelivery, body: string, at: Date): Promise<WebhookAnswer> {
    const event = delivery.payload as { id: string };
    return postWebhook(this.guard.fetch, {
      url: delivery.url,
      body,
      timeoutMs: this.opts.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Spindle-Webhooks/1',
        'spindle-signature': signWebhook(delivery.secret, body, Math.floor(at.getTime() / 1_000)),
        'spindle-event-id': event.id,
        'spindle-delivery-id': delivery.id,
      },
    });
  }
}
