import type { ColumnType } from 'kysely';
import type { ProjectionProgressTables } from '../projection-progress/projection-progress';

type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Tables owned by the checkpoint service; `run_progress` says how far each run's log is applied. */
export interface CheckpointTables extends ProjectionProgressTables {
  checkpoints: CheckpointsTable;
  node_results: NodeResultsTable;
}

/** One row per `checkpoint.saved` event: enough to resume or fork the run at that step. */
export interface CheckpointsTable {
  run_id: string;
  checkpoint_id: string;
  /** `seq` of the `checkpoint.saved` event; orders a run's checkpoints. */
  seq: number;
  step: number;
  state: Json;
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
