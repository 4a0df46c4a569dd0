import type { Provider } from '@nestjs/common';
import { WebhookRepository } from '@spindle/control-plane';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import type { Kysely } from 'kysely';

/** Webhook subscriptions' rows; the dispatcher delivers. */
export function webhookProviders(): Provider[] {
  return [{ provide: WebhookRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new WebhookRepository(db) }];
}
