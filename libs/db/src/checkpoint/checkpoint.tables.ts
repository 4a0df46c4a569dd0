import type { ColumnType } from 'kysely';
import type { ProjectionProgressTables } from '../projection-progress/projection-progress';

type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Tables owned by the checkpoint service; `run_progress` says how far each run's log is applied. */
export interface CheckpointTables extends ProjectionProgressTables {
  checkpoints: CheckpointsTable;
  node_results: NodeResultsTable;
  initial_states: InitialStatesTable;
  waiting_runs: WaitingRunsTable;
}

/** Runs waiting for a person (`run.awaiting` not yet followed by a resume or an end): the purge keeps their checkpoints. */
export interface WaitingRunsTable {
  run_id: string;
  since: Timestamp;
}

/** A run's state as `run.queued` set it: what its checkpoints' changes are laid over. */
export interface InitialStatesTable {
  run_id: string;
  state: Json;
  queued_at: Timestamp;
}

/** One row per `checkpoint.saved` event: enough to resume or fork the run at that step. */
export interface CheckpointsTable {
  run_id: string;
  checkpoint_id: string;
  /** `seq` of the `checkpoint.saved` event; orders a run's checkpoints. */
  seq: number;
  step: number;
  /** The whole state: only rows of checkpoints from logs written before checkpoints kept changes. */
  state: ColumnType<unknown, string | null | undefined, string | null>;
  /** Top-level keys whose value changed since the previous checkpoint (or the initial state). */
  changes: ColumnType<unknown, string | null | undefined, string | null>;
  /** The node ids to run next, a JSON array. */
  frontier: Json;
  graph_hash: string;
  saved_at: Timestamp;
}

/** A `checkpoint: true` node's result, by its cache key, reusable until it expires. */
export interface NodeResultsTable {
  key: string;
  run_id: string;
  node_id: string;
  output: Json;
  handle: string | null;
  stored_at: Timestamp;
}
