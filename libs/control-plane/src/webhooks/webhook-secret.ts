import { randomBytes } from 'node:crypto';

/** A new subscription's signing secret (its deliveries are signed with `signWebhook` from libs/contracts). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;
