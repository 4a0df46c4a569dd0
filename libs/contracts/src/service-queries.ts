import { pendingAgesQuerySchema, type PendingAges } from './overview';
import { z } from 'zod';
import { actorSchema, tenantIdSchema } from './identity';
import { answerModeSchema, inputFormSchema, pendingToolCallSchema } from './run-events';
import { eraseRunQuerySchema, type EraseRunResult } from './trace-queries';
import { ingestDocumentQuerySchema, retrieveQuerySchema, type KnowledgeDocument, type RetrieveAnswer } from './knowledge';

/** Read models of the checkpoint and approval services, and the dispatcher's, served over NATS request/reply. */

export const checkpointSummarySchema = z.object({
  checkpointId: z.string(),
  runId: z.string(),
  /** `seq` of its `checkpoint.saved` event. */
  seq: z.number().int().positive(),
  step: z.number().int().nonnegative(),
  frontier: z.array(z.string()),
  graphHash: z.string(),
  savedAt: z.string(),
});
export type CheckpointSummary = z.infer<typeof checkpointSummarySchema>;
export const checkpointSchema = checkpointSummarySchema.extend({ state: z.record(z.string(), z.unknown()) });
export type Checkpoint = z.infer<typeof checkpointSchema>;

/** A `checkpoint: true` node's stored result. */
export const nodeResultSchema = z.object({
  key: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  output: z.record(z.string(), z.unknown()),
  handle: z.string().nullable(),
});
export type NodeResult = z.infer<typeof nodeResultSchema>;

/** `waitForSeq`: answer only once the projection has applied that seq of the run (bounded wait). */
export const checkpointQuerySchemas = {
  listCheckpoints: z.object({ runId: z.string(), waitForSeq: z.number().int().nonnegative().optional() }),
  /** The named checkpoint, or the run's latest when `checkpointId` is absent. */
  getCheckpoint: z.object({
    runId: z.string(),
    checkpointId: z.string().optional(),
    waitForSeq: z.number().int().nonnegative().optional(),
  }),
  /** The first stored result among `keys` (tried in order), if any is still within its TTL. */
  getNodeResult: z.object({ keys: z.array(z.string()).min(1).max(16) }),
  eraseRun: eraseRunQuerySchema,
} as const;
export type CheckpointQueryOp = keyof typeof checkpointQuerySchemas;
export interface CheckpointQueryResults {
  listCheckpoints: { checkpoints: CheckpointSummary[] };
  /** `expiredBefore`: checkpoints saved before this instant are past the TTL (purged, or about to be). */
  getCheckpoint: { checkpoint: Checkpoint | null; expiredBefore?: string };
  getNodeResult: { result: NodeResult | null };
  eraseRun: EraseRunResult;
}

export const requestStatusSchema = z.enum(['pending', 'answered', 'timed_out', 'canceled']);
export type RequestStatus = z.infer<typeof requestStatusSchema>;

/** A person's open (or closed) request: a human node's input or a tool call's approval. */
export const humanRequestSchema = z.object({
  requestId: z.string(),
  runId: z.string(),
  workflow: z.string(),
  nodeId: z.string(),
  kind: z.enum(['input', 'approval']),
  prompt: z.string(),
  /** `input` requests: what to answer. */
  form: inputFormSchema.nullable(),
  /** `approval` requests: the exact call awaiting approval. */
  call: pendingToolCallSchema.nullable(),
  mode: answerModeSchema,
  status: requestStatusSchema,
  requestedAt: z.string(),
  expiresAt: z.string().nullable(),
  /** Milliseconds since it was requested, when the answer was computed. */
  ageMs: z.number().int().nonnegative(),
  answeredAt: z.string().nullable(),
  answeredBy: actorSchema.nullable(),
  answer: z.record(z.string(), z.unknown()).nullable(),
  /** `seq` of its `input.requested` / `approval.requested` event. */
  seq: z.number().int().positive(),
});
export type HumanRequest = z.infer<typeof humanRequestSchema>;

export const approvalQuerySchemas = {
  listRequests: z.object({
    /** Only this tenant's requests: every read names the caller's tenant. */
    tenant: tenantIdSchema,
    status: requestStatusSchema.optional(),
    runId: z.string().optional(),
    waitForSeq: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).max(200).default(50),
    /** Opaque, from the previous page's `nextCursor`. */
    cursor: z.string().optional(),
  }),
  /** The overview dashboards' pending requests by age. */
  pendingAges: pendingAgesQuerySchema,
  eraseRun: eraseRunQuerySchema,
} as const;
export type ApprovalQueryOp = keyof typeof approvalQuerySchemas;
export interface ApprovalQueryResults {
  listRequests: { requests: HumanRequest[]; nextCursor: string | null };
  pendingAges: PendingAges;
  eraseRun: EraseRunResult;
}

/** The dispatcher (the control plane): its projection's rows of a run erased; the due schedule firings made now. */
export const dispatcherQuerySchemas = {
  eraseRun: eraseRunQuerySchema,
  /** A schedule's manual trigger: the gateway recorded the firing; the dispatcher makes it without waiting for its tick. */
  fireDue: z.object({}).strict(),
  /** A document the gateway stored (bytes in the object store, row `pending`): extract, chunk, embed, write; the result or its 4xx. */
  ingestDocument: ingestDocumentQuerySchema,
  /** A run's (or the API's) search of a tenant's knowledge base. */
  retrieve: retrieveQuerySchema,
} as const;
export type DispatcherQueryOp = keyof typeof dispatcherQuerySchemas;
export interface DispatcherQueryResults {
  eraseRun: EraseRunResult;
  fireDue: { fired: true };
  ingestDocument: { document: KnowledgeDocument };
  retrieve: RetrieveAnswer;
}
