import { z } from 'zod';
import { actorSchema } from './identity';

/** Webhook ids: `wh_` and a ULID; deliveries `whd_` and a ULID. */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9A-HJKMNP-TV-Z]{26}$/;

/** What a subscription may be told of: a run's end, and a run that waits on a person. */
export const WEBHOOK_EVENT_TYPES = ['run.completed', 'run.failed', 'run.canceled', 'run.awaiting'] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** The JSON body of a delivery; `id` is the same on every retry of it (receivers deduplicate by it). */
export const webhookEventSchema = z.object({
  id: z.string(),
  type: webhookEventTypeSchema,
  createdAt: z.string(),
  data: z.object({
    runId: z.string(),
    workflow: z.object({ name: z.string(), version: z.number().int() }),
    threadId: z.string().nullable(),
    /** The schedule whose firing started the run. */
    scheduleId: z.string().nullable(),
    /** `run.completed`: the end state. */
    output: z.record(z.string(), z.unknown()).optional(),
    /** `run.failed`: what failed; `run.canceled`: why. */
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    /** `run.awaiting`: input or tool approval, and the requests to answer. */
    awaiting: z.object({ reason: z.string(), requestIds: z.array(z.string()) }).optional(),
  }),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

const timestamp = z.string().describe('An ISO 8601 timestamp.');

export const webhookSchema = z.object({
  webhookId: z.string(),
  url: z.string(),
  events: z.array(webhookEventTypeSchema),
  /** Only this workflow's runs (null: every workflow). */
  workflow: z.string().nullable(),
  /** Only this thread's runs (null: every run). */
  threadId: z.string().nullable(),
  /** Only the runs this schedule starts (null: every run). */
  scheduleId: z.string().nullable(),
  /** Only runs that name it when they are started. */
  namedOnly: z.boolean(),
  createdAt: timestamp,
  createdBy: actorSchema,
});
export type Webhook = z.infer<typeof webhookSchema>;

/** Which runs a subscription hears of, in words (`every run`, `workflow x, named only`), as the console and CLI show it. */
export function webhookScope(w: Pick<Webhook, 'workflow' | 'threadId' | 'scheduleId' | 'namedOnly'>): string {
  const parts = [
    w.workflow !== null ? `workflow ${w.workflow}` : '',
    w.threadId !== null ? `thread ${w.threadId}` : '',
    w.scheduleId !== null ? `schedule ${w.scheduleId}` : '',
    w.namedOnly ? 'named only' : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? 'every run' : parts.join(', ');
}

export const webhookAttemptSchema = z.object({
  attempt: z.number().int().positive(),
  at: timestamp,
  /** The receiver's HTTP status; null when there was no answer (`error` says why). */
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int().nonnegative(),
  /** The first 2 KiB of the answer. */
  response: z.string().nullable(),
});

export const webhookDeliverySchema = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  eventType: webhookEventTypeSchema,
  runId: z.string(),
  /** `dead` once its retries ran out (24 h by default) without a 2xx. */
  status: z.enum(['pending', 'delivered', 'dead', 'canceled']),
  attempts: z.array(webhookAttemptSchema),
  nextAttemptAt: timestamp.nullable(),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
