export { createSpindleClient } from './spindle-client';
export type { SpindleClient, StartRunOptions, CallOptions } from './spindle-client';
export type { SpindleClientOptions } from './http-transport';
export type { FollowOptions, StreamToken } from './run-follower';
export { SpindleApiError, SpindleUnreachableError, SpindleProtocolError, isSpindleApiError } from './spindle-errors';
export type { ApiErrorCode, Problem } from './spindle-errors';
export { createSseParser } from './sse-parser';
// A receiver of webhooks checks each delivery with these (the deliverer signs with the same code).
export { checkWebhookSignature, verifyWebhookSignature, WEBHOOK_SIGNATURE_TOLERANCE_SECONDS } from '@spindle/contracts';
export type { WebhookSignatureCheck } from '@spindle/contracts';
export type { SseMessage, SseParser } from './sse-parser';
export type * from './api-types';
