import type { Actor, HumanRequest, InputForm, PendingToolCall, RequestStatus } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import type { Selectable } from 'kysely';

export type StoredRequestRow = Selectable<ApprovalTables['requests']>;

/** A stored request as the query API shows it; `ageMs` is measured at `nowMs`. */
export function toHumanRequest(row: StoredRequestRow, nowMs: number): HumanRequest {
  return {
    requestId: row.request_id,
    runId: row.run_id,
    workflow: row.workflow,
    nodeId: row.node_id,
    kind: row.kind,
    prompt: row.prompt,
    form: (row.form as InputForm | null) ?? null,
    call: (row.call as PendingToolCall | null) ?? null,
    mode: row.mode as HumanRequest['mode'],
    status: row.status as RequestStatus,
    requestedAt: row.requested_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    ageMs: Math.max(0, Math.round(nowMs - row.requested_at.getTime())),
    answeredAt: row.answered_at?.toISOString() ?? null,
    answeredBy: (row.answered_by as Actor | null) ?? null,
    answer: (row.answer as Record<string, unknown> | null) ?? null,
    seq: row.seq,
  };
}
