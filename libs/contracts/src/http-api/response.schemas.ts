import { z } from 'zod';
import { actorSchema, SCOPES } from '../identity';
import { threadRunSchema, threadSchema, threadRunStatusSchema } from '../threads';
import { webhookDeliverySchema, webhookSchema } from '../webhooks';
import { scheduleFiringSchema, scheduleSchema } from '../schedules';
import { runEventSchema, workflowRefSchema } from '../run-events';
import { checkpointSummarySchema, humanRequestSchema } from '../service-queries';
import { runSummarySchema } from '../trace-queries';
import { tenantQuotasSchema } from './request.schemas';

/** What the gateway answers with: the success bodies of every `/v1` route (problems are `problem.schema.ts`). */

const timestamp = z.string().describe('An ISO 8601 timestamp.');

/** `202` to a start: where the run and its events are. */
export const runAcceptedSchema = z.object({
  runId: z.string(),
  workflow: workflowRefSchema,
  status: z.literal('queued'),
  location: z.string(),
  eventsLocation: z.string(),
});
export type RunAccepted = z.infer<typeof runAcceptedSchema>;

export const forkAcceptedSchema = z.object({
  runId: z.string(),
  forkedFrom: z.object({ runId: z.string(), seq: z.number().int(), checkpointId: z.string(), forkedBy: actorSchema }),
  status: z.literal('queued'),
  location: z.string(),
  eventsLocation: z.string(),
});
export type ForkAccepted = z.infer<typeof forkAcceptedSchema>;

/** `canceled` once the log shows it; `cancel_requested` while the runner is still stopping. */
/** A stream token, minted for one run: `GET /v1/runs/{id}/events?access_token=<token>` (a native `EventSource`). */
export const streamTokenSchema = z.object({
  token: z.string().describe("`sst_…`: carry it as `access_token` on the run's events; it reads this run only."),
  runId: z.string(),
  expiresAt: timestamp.describe('When the token stops working.'),
});
export type StreamToken = z.infer<typeof streamTokenSchema>;

export const cancelOutcomeSchema = z.object({ runId: z.string(), status: z.enum(['canceled', 'cancel_requested']) });
export type CancelOutcome = z.infer<typeof cancelOutcomeSchema>;

/** `recorded`: the answer was appended at `seq`; `unchanged`: the same answer was already there. */
export const answerOutcomeSchema = z.object({
  runId: z.string(),
  requestId: z.string(),
  status: z.enum(['recorded', 'unchanged']),
  seq: z.number().int(),
});
export type AnswerOutcome = z.infer<typeof answerOutcomeSchema>;

/** One page of a list; `nextCursor` is null on the last page. */
export const runListSchema = z.object({ runs: z.array(runSummarySchema), nextCursor: z.string().nullable() });
export type RunList = z.infer<typeof runListSchema>;
export const requestListSchema = z.object({ requests: z.array(humanRequestSchema), nextCursor: z.string().nullable() });
export type RequestList = z.infer<typeof requestListSchema>;
export const runRequestsSchema = z.object({ requests: z.array(humanRequestSchema) });
export type RunRequests = z.infer<typeof runRequestsSchema>;
export const checkpointListSchema = z.object({ checkpoints: z.array(checkpointSummarySchema) });
export type CheckpointList = z.infer<typeof checkpointListSchema>;

/** The JSON form of a run's events: those after `after`, the log's last seq, and whether the run has ended. */
export const runEventsPageSchema = z.object({ events: z.array(runEventSchema), lastSeq: z.number().int(), terminal: z.boolean() });
export type RunEventsPage = z.infer<typeof runEventsPageSchema>;

/** `201` for a new version, `200` when the definition equals the latest. */
export const catalogSavedSchema = z.object({ name: z.string(), version: z.number().int(), created: z.boolean() });
export type SavedVersion = z.infer<typeof catalogSavedSchema>;

export const workflowSummarySchema = z.object({
  name: z.string(),
  latestVersion: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type WorkflowSummary = z.infer<typeof workflowSummarySchema>;
export const workflowListSchema = z.object({ workflows: z.array(workflowSummarySchema) });
export type WorkflowList = z.infer<typeof workflowListSchema>;
/** A stored version: the definition exactly as it was saved. */
export const workflowVersionSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  definition: z.unknown(),
  createdAt: timestamp,
});
export type WorkflowVersion = z.infer<typeof workflowVersionSchema>;
export const workflowVersionsSchema = z.object({
  name: z.string(),
  versions: z.array(z.object({ version: z.number().int(), createdAt: timestamp })),
});
export type WorkflowVersions = z.infer<typeof workflowVersionsSchema>;

/** One difference between two versions, at a JSON-Pointer-like path whose array elements are named by their key. */
export const fieldChangeSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('added'), path: z.string(), after: z.unknown() }),
  z.object({ op: z.literal('removed'), path: z.string(), before: z.unknown() }),
  z.object({ op: z.literal('changed'), path: z.string(), before: z.unknown(), after: z.unknown() }),
]);
export type FieldChange = z.infer<typeof fieldChangeSchema>;
const ids = z.array(z.string());
export const versionDiffSchema = z.object({
  identical: z.boolean(),
  /** Nodes by id, nested ones included: a node whose fields changed is `changed`. */
  nodes: z.object({ added: ids, removed: ids, changed: ids }),
  /** Edges as `from->to` (`:handle` when it has one). */
  edges: z.object({ added: ids, removed: ids }),
  changes: z.array(fieldChangeSchema),
  text: z
    .string()
    .nullable()
    .describe('A unified diff of both versions as sorted, indented JSON; null past 1,000 changed lines or half a second of work.'),
});
export type VersionDiff = z.infer<typeof versionDiffSchema>;
export const catalogDiffSchema = versionDiffSchema.extend({ name: z.string(), from: z.number().int(), to: z.number().int() });
export type CatalogDiff = z.infer<typeof catalogDiffSchema>;
/** A rollback saves the old version's definition as the next version (`created: false` when it already is the latest). */
export const catalogRolledBackSchema = catalogSavedSchema.extend({ rolledBackTo: z.number().int() });
export type CatalogRolledBack = z.infer<typeof catalogRolledBackSchema>;

const nestedIn = { parent: z.string().optional(), lane: z.string().optional() };
/** Layout hints (`rank`, `order`, `back` edges) and Mermaid text of a definition. */
export const workflowGraphSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  entry: z.string(),
  nodes: z.array(
    z.object({ id: z.string(), type: z.string(), label: z.string(), rank: z.number().int(), order: z.number().int(), ...nestedIn }),
  ),
  edges: z.array(z.object({ from: z.string(), to: z.string(), handle: z.string(), back: z.boolean(), ...nestedIn })),
  mermaid: z.string(),
});
export type WorkflowGraph = z.infer<typeof workflowGraphSchema>;

export const storedAgentSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  spec: z.record(z.string(), z.unknown()),
  updatedAt: timestamp,
});
export type StoredAgent = z.infer<typeof storedAgentSchema>;
export const agentListSchema = z.object({ agents: z.array(storedAgentSchema) });
export type AgentList = z.infer<typeof agentListSchema>;

export const meSchema = z.object({
  actor: actorSchema,
  tenant: z.object({ id: z.string(), name: z.string(), operator: z.boolean() }),
  scopes: z.array(z.enum(SCOPES)),
  via: z.enum(['api_key', 'oidc', 'auth_off']),
  expiresAt: timestamp.nullable(),
});
export type Me = z.infer<typeof meSchema>;

/** What the console's sign-in page offers. */
export const authConfigSchema = z.object({
  authOff: z.boolean(),
  apiKeys: z.boolean(),
  oidc: z.object({ issuer: z.string(), clientId: z.string(), scope: z.string(), audience: z.string() }).nullable(),
});
export type AuthConfig = z.infer<typeof authConfigSchema>;

/** An API key as listed: never its secret. */
export const apiKeyViewSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  createdAt: timestamp,
  createdBy: actorSchema,
  expiresAt: timestamp.nullable(),
  revokedAt: timestamp.nullable(),
  revokedBy: actorSchema.nullable(),
  lastUsedAt: timestamp.nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;
/** `201` to a new key: the whole key (`spk_…`) is in this answer once, never again. */
export const newApiKeySchema = apiKeyViewSchema.extend({ key: z.string() });
export type CreatedKey = z.infer<typeof newApiKeySchema>;
export const apiKeyListSchema = z.object({ keys: z.array(apiKeyViewSchema) });
export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

export const tenantSchema = z.object({
  id: z.string(),
  name: z.string(),
  operator: z.boolean(),
  quotas: tenantQuotasSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Tenant = z.infer<typeof tenantSchema>;
export const tenantListSchema = z.object({ tenants: z.array(tenantSchema) });
export type TenantList = z.infer<typeof tenantListSchema>;

export const auditRecordSchema = z.object({
  id: z.string(),
  at: timestamp,
  tenant: z.string(),
  actor: actorSchema,
  action: z.string(),
  target: z.object({ kind: z.string(), id: z.string() }),
  source: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;
/** Newest first; `nextCursor` (the last entry's id) asks for older ones. */
export const auditPageSchema = z.object({ entries: z.array(auditRecordSchema), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof auditPageSchema>;

/** The OpenAPI 3.1 document (`GET /v1/openapi.json`): a plain JSON object, not checked field by field. */
export const openApiDocumentSchema = z.record(z.string(), z.unknown());
export type OpenApiDocument = z.infer<typeof openApiDocumentSchema>;

export const threadListSchema = z.object({ threads: z.array(threadSchema), nextCursor: z.string().nullable() });
export type ThreadList = z.infer<typeof threadListSchema>;
export const threadStateSchema = z.object({
  threadId: z.string(),
  /** The end state of the thread's last completed run (its `input` included); `{}` before one. */
  state: z.record(z.string(), z.unknown()),
  stateFromRun: z.string().nullable(),
});
export type ThreadState = z.infer<typeof threadStateSchema>;
export const threadRunsSchema = z.object({ threadId: z.string(), runs: z.array(threadRunSchema) });
export type ThreadRuns = z.infer<typeof threadRunsSchema>;
export const threadRunAcceptedSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  workflow: z.string(),
  position: z.number().int().positive(),
  /** `queued` when it was started at once, `pending` when it waits for the runs before it. */
  status: threadRunStatusSchema,
  location: z.string(),
});
export type ThreadRunAccepted = z.infer<typeof threadRunAcceptedSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) });
export type WebhookList = z.infer<typeof webhookListSchema>;
/** A new subscription: the only answer that shows its `secret`. */
export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe('Signs every delivery: `Spindle-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.'),
});
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;
export const webhookDeliveriesSchema = z.object({ deliveries: z.array(webhookDeliverySchema), nextCursor: z.string().nullable() });
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;

export const scheduleListSchema = z.object({ schedules: z.array(scheduleSchema) });
export type ScheduleList = z.infer<typeof scheduleListSchema>;
export const scheduleFiringsSchema = z.object({ scheduleId: z.string(), firings: z.array(scheduleFiringSchema) });
export type ScheduleFirings = z.infer<typeof scheduleFiringsSchema>;
