import type { RunEvent } from '@spindle/contracts';
import { admissionStateAfter } from '@spindle/projections';

/** Where a batch leaves each run it touches: waiting for a person since `at`, or not waiting. */
export type WaitingChange = { runId: string; waiting: true; since: string } | { runId: string; waiting: false };

/**
 * Which runs a batch of events leaves waiting for a person. A run's checkpoints are what its
 * answer resumes from, so the purge keeps them however long it waits. "Waiting" is the
 * admission's `paused` (one rule for the question); a resume, an end or a new queue ends it.
 * Sorted by run id, so two replicas take their row locks in one order.
 */
export function waitingChangesOf(events: readonly RunEvent[]): WaitingChange[] {
  const last = new Map<string, WaitingChange>();
  for (const event of events) {
    const after = admissionStateAfter[event.type];
    if (after === null) continue;
    last.set(
      event.runId,
      after === 'paused' ? { runId: event.runId, waiting: true, since: event.at } : { runId: event.runId, waiting: false },
    );
  }
  return [...last.values()].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}
