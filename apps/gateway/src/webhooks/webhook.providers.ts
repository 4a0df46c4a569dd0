import type { Provider } from '@nestjs/common';
import { WebhookRepository } from '@spindle/control-plane';
import { repositoryProvider } from '@spindle/service-db';

/** Webhook subscriptions' rows; the dispatcher delivers. */
export function webhookProviders(): Provider[] {
  return [repositoryProvider(WebhookRepository)];
}
