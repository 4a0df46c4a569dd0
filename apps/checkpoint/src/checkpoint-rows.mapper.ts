import type { RunEvent, RunEventOf } from '@spindle/contracts';
import type { CheckpointsTable, InitialStatesTable, NodeResultsTable } from '@spindle/db';
import type { Insertable } from 'kysely';

/** The `checkpoints` row of a `checkpoint.saved` event: its changes (or, from older logs, its whole state). */
export function checkpointRowOf(event: RunEventOf<'checkpoint.saved'>): Insertable<CheckpointsTable> {
  const { checkpointId, step, changes, state, frontier, graphHash } = event.data;
  return {
    run_id: event.runId,
    checkpoint_id: checkpointId,
    seq: event.seq,
    step,
    changes: changes === undefined ? null : jsonText(changes),
    state: state === undefined ? null : jsonText(state),
    frontier: jsonText(frontier),
    graph_hash: graphHash,
    saved_at: event.at,
  };
}

/** The `initial_states` row of a `run.queued` event: the state its checkpoints' changes apply to. */
export function initialStateRowOf(event: RunEventOf<'run.queued'>): Insertable<InitialStatesTable> {
  return { run_id: event.runId, state: jsonText(event.data.state), queued_at: event.at };
}

/** The `node_results` row of a `node.completed` event, when its node is cached (`cacheKey`). */
export function nodeResultRowOf(event: RunEvent): Insertable<NodeResultsTable> | undefined {
  if (event.type !== 'node.completed' || event.data.cacheKey === undefined) return undefined;
  // The runner always names the node of a node event; without it the row could not say whose result it is.
  if (event.nodeId === undefined) return undefined;
  return {
    key: event.data.cacheKey,
    run_id: event.runId,
    node_id: event.nodeId,
    output: jsonText(event.data.output),
    handle: event.data.handle ?? null,
    stored_at: event.at,
  };
}

// `\u0000` is valid JSON but jsonb refuses it; one such state must not stall the projection of
// every run. Only an escape that is not itself escaped (an even number of backslashes before it) is a NUL.
const NUL_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

/** JSON text for a jsonb column, a NUL character replaced by U+FFFD. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(NUL_ESCAPE, '\\ufffd');
}
