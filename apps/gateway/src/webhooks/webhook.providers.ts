import type { Provider } from '@nestjs/common';
import { createEgressGuard } from '@spindle/egress';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import { LOGGER, PeriodicLoop } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import { WebhookDeliverer, WebhookRepository } from '@spindle/control-plane';

const WEBHOOK_DELIVERY_LOOP = Symbol('WEBHOOK_DELIVERY_LOOP');

/** Webhook subscriptions, and the pass that delivers what is due (after every projection batch, and each second). */
export function webhookProviders(config: GatewayConfig): Provider[] {
  return [
    { provide: WebhookRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new WebhookRepository(db) },
    {
      provide: WebhookDeliverer,
      inject: [WebhookRepository, LOGGER],
      useFactory: (rows: WebhookRepository, logger: Logger) =>
        new WebhookDeliverer(rows, createEgressGuard(config.webhooks.egress), config.webhooks, logger),
    },
    {
      provide: WEBHOOK_DELIVERY_LOOP,
      inject: [WebhookDeliverer, LOGGER],
      useFactory: (deliverer: WebhookDeliverer, logger: Logger) =>
        new PeriodicLoop({ name: 'webhook delivery', everyMs: 1_000, pass: () => deliverer.deliverDue(), logger }),
    },
  ];
}
