import type { ColumnType, Generated } from 'kysely';
import type { ProjectionProgressTables } from '../projection-progress/projection-progress';

type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Tables owned by the trace recorder. */
export interface TraceTables extends ProjectionProgressTables {
  runs: RunsTable;
  spans: SpansTable;
  run_events: RunEventsTable;
  scores: ScoresTable;
  score_configs: ScoreConfigsTable;
  score_settings: ScoreSettingsTable;
}

export interface RunsTable {
  run_id: string;
  workflow: string;
  workflow_version: number;
  status: string;
  queued_at: Timestamp;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  /** Wall time (libs/contracts durations), set when the run ends. */
  wall_ms: number | null;
  /** Working time: wall time less the waits, set when the run ends. */
  working_ms: number | null;
  /** The run's clock between batches: waits closed so far, and when the open one began. */
  waited_ms: Generated<number>;
  waiting_since: Timestamp | null;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  total_tokens: Generated<number>;
  /** USD, summed from priced model calls. */
  cost_usd: Generated<number>;
  cached_input_tokens: Generated<number>;
  cache_write_tokens: Generated<number>;
  reasoning_tokens: Generated<number>;
  unpriced_calls: Generated<number>;
  error: Json | null;
  last_seq: number;
  root_span_id: string;
  forked_from: Json | null;
  /** From `run.queued` (`default` for runs queued before tenants). */
  tenant: string;
  started_by: Json | null;
  canceled_by: Json | null;
  /** The run's parameters (`run.queued`), for the list's `parameter=key=value` filter. */
  parameters: Json | null;
  /** Generated from `error`: the list's error code filter reads an index of it. */
  error_code: ColumnType<string | null, never, never>;
  /** Words of the run's input and output (`tsvector`, 'simple' config): the list's text search. */
  search: ColumnType<string, string | undefined, string>;
}

export interface SpansTable {
  run_id: string;
  span_id: string;
  parent_span_id: string | null;
  node_id: string | null;
  path: string;
  kind: string;
  node_type: string | null;
  status: string;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  duration_ms: number | null;
  start_seq: number | null;
  end_seq: number | null;
  input: Json | null;
  output: Json | null;
  error: Json | null;
  usage: Json | null;
  model: string | null;
  iteration: number | null;
  branch_id: string | null;
}

export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: string;
  at: Timestamp;
  /** Where the event sat in the stream, when known (rows written before the projection kit). */
  stream_seq: ColumnType<string | null, number | string | null | undefined, number | string | null>;
  event: Json;
}

/** A score of a run or of one of its spans: written once, never folded from the log (libs/contracts scores). */
export interface ScoresTable {
  score_id: string;
  tenant: string;
  run_id: string;
  span_id: string | null;
  name: string;
  data_type: string;
  /** The value as given (a number, a boolean or a category). */
  value: Json;
  /** The value as a number where it has one (a boolean is 1 or 0): what filters and sorts compare. */
  value_number: number | null;
  comment: string | null;
  given_by: Json;
  evaluator: Json | null;
  created_at: Timestamp;
}

/** What a tenant's score of a name must be (libs/contracts score-configs). */
export interface ScoreConfigsTable {
  tenant: string;
  name: string;
  data_type: string;
  min: number | null;
  max: number | null;
  categories: Json | null;
  description: string | null;
  updated_at: Timestamp;
}

/** A tenant's score settings: `strict` refuses a score whose name no config declares. */
export interface ScoreSettingsTable {
  tenant: string;
  strict: boolean;
}
