import { z } from 'zod';
import { RUN_ID_PATTERN } from '../run-id';
import { runStatusSchema } from '../run-status';
import { runSearchFields, runSortSchema, scoreSortIssue, sortOrderSchema, timeWindowIssue } from '../run-search';
import { requestStatusSchema } from '../service-queries';
import { scopeSchema, TENANT_ID_PATTERN, tenantIdSchema } from '../identity';
import { MAX_SEQ, MAX_VERSION, queryInteger } from './decimal-integer';
import { multitaskStrategySchema, THREAD_ID_PATTERN, threadIdSchema } from '../threads';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_ID_PATTERN, webhookEventTypeSchema } from '../webhooks';
import { SCHEDULE_ID_PATTERN, scheduleCatchUpSchema, scheduleOverlapSchema } from '../schedules';
import { CHAT_ID_PATTERN } from '../ui-chat';
import { FILE_ID_PATTERN } from '../attachments';

/**
 * What the gateway accepts: path parameters, query strings and JSON bodies of every `/v1` route.
 * The controllers validate with these schemas, and the OpenAPI document is generated from them.
 */

/** The workflow catalog's names. */
export const WORKFLOW_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** The agent catalog's names: identifiers, since patterns refer to them in tool names. */
export const AGENT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Path parameters as documented; the gateway's path pipes check the same patterns. */
export const pathParamSchemas = {
  id: z.string().regex(RUN_ID_PATTERN).describe('A run id.'),
  name: z.string().regex(WORKFLOW_NAME_PATTERN).describe('A workflow name (for /agents: an agent name).'),
  agentName: z.string().regex(AGENT_NAME_PATTERN).describe('An agent name.'),
  requestId: z.string().regex(RUN_ID_PATTERN).describe('A request id (`req_…`).'),
  keyId: z.string().min(1).describe('An API key id (the part after `spk_`).'),
  tenant: z.string().regex(TENANT_ID_PATTERN).describe('A tenant id.'),
  threadId: z.string().regex(THREAD_ID_PATTERN).describe('A thread id (`thr_…`).'),
  webhookId: z.string().regex(WEBHOOK_ID_PATTERN).describe('A webhook id (`wh_…`).'),
  scheduleId: z.string().regex(SCHEDULE_ID_PATTERN).describe('A schedule id (`sch_…`).'),
  chatId: z.string().regex(CHAT_ID_PATTERN).describe("A chat's id, as `useChat` made it."),
  fileId: z.string().regex(FILE_ID_PATTERN).describe('A file id (`file_…`).'),
  from: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .describe('The version compared from.'),
  to: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .describe('The version compared to.'),
} as const;

/** A page of at most `limit` items (default 50); the next page is asked for with the previous page's `nextCursor`. */
export const listLimitSchema = queryInteger({ min: 1, max: 200 }).default(50).describe('Page size: 1 to 200, default 50.');
/** Opaque: base64url text the previous page answered with. The gateway also checks that it decodes to a cursor it issued. */
export const listCursorSchema = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[A-Za-z0-9_-]+$/, 'not a cursor this service issued')
  .describe("The previous page's `nextCursor`: the page after it.");

export const runsListQuerySchema = z
  .strictObject({
    workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'not a workflow name').optional(),
    status: runStatusSchema.optional(),
    ...runSearchFields,
    sort: runSortSchema.default('started'),
    order: sortOrderSchema.default('desc'),
    limit: listLimitSchema,
    cursor: listCursorSchema.describe("The previous page's `nextCursor`, asked with the same `sort` and `order`.").optional(),
  })
  .superRefine((query, ctx) => {
    const issue = timeWindowIssue(query);
    if (issue) ctx.addIssue({ code: 'custom', path: ['from'], message: issue });
    const sortIssue = scoreSortIssue(query);
    if (sortIssue) ctx.addIssue({ code: 'custom', path: ['sort'], message: sortIssue });
  });
/** The filters of `GET /v1/runs` as the gateway reads them; a client may leave any out. */
export type RunListFilter = Partial<z.output<typeof runsListQuerySchema>>;

/** `GET /v1/overview`: one workflow or all, over the last `days` UTC days (today included). */
export const overviewQuerySchema = z.strictObject({
  workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'not a workflow name').optional().describe('Only this workflow (default: all).'),
  days: queryInteger({ min: 1, max: 90 }).default(14).describe('UTC days, today included: 1 to 90, default 14.'),
});

export const requestsListQuerySchema = z.strictObject({
  status: requestStatusSchema.optional(),
  limit: listLimitSchema,
  cursor: listCursorSchema.optional(),
});
export type RequestListFilter = Partial<z.output<typeof requestsListQuerySchema>>;

/** `after`: only events with a larger seq (the JSON form and the stream alike). */
export const eventsQuerySchema = z.strictObject({
  after: queryInteger({ min: 0, max: MAX_SEQ }).default(0).describe('Only events with a larger seq (default 0: from the start).'),
});

/** How long a stream token may live, in seconds. */
export const STREAM_TOKEN_TTL_SECONDS = Object.freeze({ min: 10, max: 900, default: 300 });

/** `POST /v1/runs/{id}/stream-tokens`. */
export const streamTokenBodySchema = z.strictObject({
  ttlSeconds: z
    .number()
    .int()
    .min(STREAM_TOKEN_TTL_SECONDS.min)
    .max(STREAM_TOKEN_TTL_SECONDS.max)
    .default(STREAM_TOKEN_TTL_SECONDS.default)
    .describe(
      `How long the token works, in seconds (${STREAM_TOKEN_TTL_SECONDS.min} to ${STREAM_TOKEN_TTL_SECONDS.max}; ` +
        `default ${STREAM_TOKEN_TTL_SECONDS.default}).`,
    ),
});

/** `POST /v1/workflows/{name}/rollback` and `/v1/agents/{name}/rollback`. */
export const rollbackBodySchema = z.strictObject({
  version: z.number().int().min(1).max(MAX_VERSION).describe('The version whose definition becomes the next version.'),
});

/** `?version=` of a workflow read (the definition, its graph): the latest without it. */
export const workflowVersionQuerySchema = z.strictObject({ version: queryInteger({ min: 1, max: MAX_VERSION }).optional() });

/** The operator tenant's admins may name another tenant. */
export const tenantQuerySchema = z.strictObject({ tenant: tenantIdSchema.optional() });

const AUDIT_FILTER_TEXT = /^[\x21-\x7e]{1,200}$/;
const auditText = z.string().regex(AUDIT_FILTER_TEXT, 'visible ASCII, at most 200');
export const auditQuerySchema = z.strictObject({
  action: auditText.optional(),
  actor: auditText.optional(),
  targetKind: auditText.optional(),
  targetId: auditText.optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  /** The operator's admins read any tenant's trail. */
  tenant: tenantIdSchema.optional(),
  limit: listLimitSchema,
  /** The previous page's `nextCursor`: entries older than it. */
  cursor: queryInteger({ min: 1, max: Number.MAX_SAFE_INTEGER }).describe("The previous page's `nextCursor`: older entries.").optional(),
});
/** The audit page's `nextCursor` is the last entry's id as text: it goes back as it came. */
export type AuditFilter = Omit<Partial<z.output<typeof auditQuerySchema>>, 'cursor'> & { cursor?: string | number };

export const startRunBodySchema = z.strictObject({
  input: z.unknown().optional(),
  /** Initial state, merged first; `input` is then written to `state.input`. */
  state: z.record(z.string(), z.unknown()).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  version: z.number().int().min(1).max(MAX_VERSION).optional(),
  /** With `Accept: text/event-stream`: cancel the run if the client disconnects before it ends. */
  cancelOnDisconnect: z.boolean().optional(),
  /** Webhook subscriptions told of this run (besides those whose filters match it): how a run names its own. */
  webhooks: z.array(z.string().regex(WEBHOOK_ID_PATTERN, 'a webhook id')).max(8).optional(),
});
export type StartRunBody = z.infer<typeof startRunBodySchema>;

/** What a thread is created with: metadata of the caller's own, at most 64 keys. */
export const newThreadBodySchema = z.strictObject({
  metadata: z
    .record(z.string().max(128), z.unknown())
    .refine((m) => Object.keys(m).length <= 64, 'at most 64 keys')
    .optional(),
});
export type NewThreadBody = z.infer<typeof newThreadBodySchema>;

/** `POST /v1/threads/{threadId}/runs`: a run of `workflow` that starts from the thread's state. */
export const threadRunBodySchema = z.strictObject({
  workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'a workflow name'),
  input: z.unknown().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  version: z.number().int().min(1).max(MAX_VERSION).optional(),
  webhooks: z.array(z.string().regex(WEBHOOK_ID_PATTERN, 'a webhook id')).max(8).optional(),
  multitaskStrategy: multitaskStrategySchema
    .default('reject')
    .describe('What happens when the thread is busy: reject (409 thread_busy), enqueue, interrupt or rollback.'),
});
export type ThreadRunBody = z.infer<typeof threadRunBodySchema>;
/** What a client sends (`multitaskStrategy` may be left out). */
export type ThreadRunRequest = z.input<typeof threadRunBodySchema>;

/** `POST /v1/threads/{threadId}/state`: keys merged into the thread's state, or the whole state replaced. */
export const threadStateBodySchema = z.strictObject({
  values: z.record(z.string(), z.unknown()),
  mode: z.enum(['merge', 'replace']).default('merge'),
});
export type ThreadStateBody = z.infer<typeof threadStateBodySchema>;

export const threadsListQuerySchema = z.strictObject({ limit: listLimitSchema, cursor: listCursorSchema.optional() });

/** `POST /v1/webhooks`: where to POST which run events, for which runs. */
export const newWebhookBodySchema = z.strictObject({
  url: z.string().min(1).max(2_048).describe('https (http only where the deployment allows it), on the allow-list if internal.'),
  events: z
    .array(webhookEventTypeSchema)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((e) => new Set(e).size === e.length, 'each event at most once')
    .optional(),
  workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'a workflow name').optional(),
  threadId: threadIdSchema.optional(),
  scheduleId: z.string().regex(SCHEDULE_ID_PATTERN, 'a schedule id').optional(),
  /** Only runs that name it in their `webhooks` (the filters above then do not apply). */
  namedOnly: z.boolean().optional(),
});
export type NewWebhookBody = z.infer<typeof newWebhookBodySchema>;

export const webhookDeliveriesQuerySchema = z.strictObject({ limit: listLimitSchema, cursor: listCursorSchema.optional() });

const datasetVersion = queryInteger({ min: 1, max: MAX_VERSION }).describe('A version of the dataset (default its latest).');
/** `GET /v1/experiments/compare?ids=a,b&format=`: two to ten experiments over one dataset. */
export const experimentsCompareQuerySchema = z.strictObject({
  ids: z
    .string()
    .regex(/^exp_[0-9A-HJKMNP-TV-Z]{26}(,exp_[0-9A-HJKMNP-TV-Z]{26}){1,9}$/, 'two to ten experiment ids, comma-separated')
    .transform((text) => text.split(','))
    .describe('Two to ten experiment ids, comma-separated.'),
  format: z.enum(['json', 'csv']).default('json').describe('`csv`: one row per item, columns per experiment.'),
});

/** `GET /v1/datasets/{name}?version=`. */
export const datasetVersionQuerySchema = z.strictObject({ version: datasetVersion.optional() });
/** `GET /v1/datasets/{name}/items`: a version's items, oldest first. */
export const datasetItemsQuerySchema = z.strictObject({
  version: datasetVersion.optional(),
  limit: listLimitSchema,
  cursor: listCursorSchema.optional(),
});

/** `POST /v1/schedules`. */
export const newScheduleBodySchema = z.strictObject({
  cron: z
    .string()
    .min(1)
    .max(200)
    .describe('Five fields (minute hour day-of-month month day-of-week), six with seconds first, or seven with a year last.'),
  timezone: z.string().min(1).max(64).default('UTC').describe('An IANA time zone; the cron is read in it.'),
  workflow: z.string().regex(WORKFLOW_NAME_PATTERN, 'a workflow name'),
  version: z.number().int().min(1).max(MAX_VERSION).optional().describe('Pinned; absent: the latest version at each firing.'),
  input: z.unknown().optional(),
  overlap: scheduleOverlapSchema.default('skip'),
  catchUp: scheduleCatchUpSchema.default('latest'),
});
export type NewScheduleBody = z.infer<typeof newScheduleBodySchema>;
export type NewScheduleRequest = z.input<typeof newScheduleBodySchema>;

export const cancelBodySchema = z.strictObject({ reason: z.string().min(1).max(500).optional() });

export const forkBodySchema = z.strictObject({
  /** The checkpoint to fork from; the run's latest when absent. */
  checkpointId: z.string().regex(RUN_ID_PATTERN, 'not a checkpoint id (letters, digits, _ or -; at most 64)').optional(),
  /** State keys to overwrite in the checkpoint's state before the fork runs. */
  state: z.record(z.string(), z.unknown()).optional(),
});
export type ForkBody = z.infer<typeof forkBodySchema>;

/** `POST /v1/runs/{id}/requests/{requestId}/respond`: an input answer or an approval decision. */
export const answerBodySchema = z.strictObject({
  // input requests (which fields depend on the form)
  approved: z.boolean().optional(),
  text: z.string().max(100_000).optional(),
  data: z.unknown().optional(),
  /** A note kept with any input answer (an approved plan's remark, why a question was declined); in the log and trace. */
  comment: z.string().min(1).max(10_000).optional(),
  // approval requests: the decision, bound to the exact call that was shown
  decision: z.enum(['approve', 'reject']).optional(),
  callId: z.string().min(1).max(200).optional(),
  name: z.string().min(1).max(200).optional(),
  argumentsHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be the sha256 hex of the call arguments, as shown in the request')
    .optional(),
  /** An approval's note, kept with the decision and shown to the model. */
  message: z.string().min(1).max(10_000).optional(),
  // either: the person a key's client answers for (recorded as `answeredBy.onBehalfOf`, not verified)
  respondedBy: z.string().min(1).max(200).optional(),
  /** Continue the run on this catalog version of its workflow (its graph structure must match). */
  definitionVersion: z.number().int().min(1).max(MAX_VERSION).optional(),
});
export type AnswerBody = z.infer<typeof answerBodySchema>;

export const newKeyBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(scopeSchema)
    .min(1)
    .refine((s) => new Set(s).size === s.length, 'each scope once'),
  expiresAt: z.iso
    .datetime({ offset: true })
    .refine((t) => Date.parse(t) > Date.now(), 'must be in the future')
    .optional(),
  /** Only the operator tenant's admins make keys for another tenant. */
  tenant: tenantIdSchema.optional(),
});
export type NewKeyBody = z.input<typeof newKeyBodySchema>;

export const newTenantBodySchema = z.strictObject({ id: tenantIdSchema, name: z.string().trim().min(1).max(100) });
export type NewTenantBody = z.input<typeof newTenantBodySchema>;

const quota = (max: number) => z.number().int().min(0).max(max).nullable();
/** A tenant's own limits; `null` takes the gateway's default. */
export const tenantQuotasSchema = z.strictObject({
  maxRunning: quota(100_000),
  startsPerMinute: quota(1_000_000),
  dailyTokenBudget: quota(Number.MAX_SAFE_INTEGER),
  dailyCostBudgetUsd: z.number().min(0).max(1e9).nullable(),
});
export type TenantQuotas = z.infer<typeof tenantQuotasSchema>;

/** `POST /v1/files?name=…`: what the file is called (shown to the model and the console). */
export const fileUploadQuerySchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f/\\]+$/, 'a file name without control characters or slashes')
    .optional()
    .describe("The file's name."),
});
