import type { ColumnType } from 'kysely';
import type { ProjectionProgressTables } from '../projection-progress/projection-progress';

type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Tables owned by the approval service: its projection of every request for a person. */
export interface ApprovalTables extends ProjectionProgressTables {
  runs: ApprovalRunsTable;
  requests: RequestsTable;
}

/** What the inbox needs to know of a run: its workflow, and whether it has ended. */
export interface ApprovalRunsTable {
  run_id: string;
  tenant: string;
  workflow: string;
  /** `active` until a terminal event, then `completed`, `failed` or `canceled`. */
  status: string;
}

export interface RequestsTable {
  request_id: string;
  run_id: string;
  tenant: string;
  workflow: string;
  node_id: string;
  kind: 'input' | 'approval';
  prompt: string;
  form: Json | null;
  call: Json | null;
  mode: string;
  /** `pending`, `answered`, `timed_out` or `canceled`. */
  status: string;
  requested_at: Timestamp;
  expires_at: Timestamp | null;
  answered_at: Timestamp | null;
  /** The actor (`{kind, id, name}`) who answered; `system`/`timeout` for a time-out. */
  answered_by: Json | null;
  answer: Json | null;
  /** `seq` of the `input.requested` / `approval.requested` event. */
  seq: number;
}
