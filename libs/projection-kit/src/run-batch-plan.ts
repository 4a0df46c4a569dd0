import { RunLogCursor, type LogCursorState } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';

/** Why a delivered event is not applied: what the log's invariants or the log itself say. */
export type RejectionKind = 'duplicate_seq' | 'after_terminal' | 'not_in_log' | 'rejected_by_database';

/** One delivered event and what the runner settles it with (its message). */
export interface Delivered<T> {
  event: RunEvent;
  item: T;
}

/** What to do with one run's slice of a batch, given how far the run is applied. */
export interface RunBatchPlan<T> {
  /** Events to fold, gapless and in seq order, continuing the applied part. */
  apply: RunEvent[];
  /** Delivered items that are settled (applied now or before): acknowledge them. */
  settled: T[];
  /** Items that are not part of the log, with why: dead-letter them. */
  rejected: Array<{ item: T; kind: RejectionKind; reason: string }>;
  /** The slice does not continue the applied part: read the missing events from the log and plan again. */
  gap: boolean;
}

/**
 * Orders a run's delivered events against its applied progress. A seq already applied (a
 * redelivery) is settled without applying it again; a repeat within the batch, or anything after
 * the terminal event, is rejected; a gap asks for the log. With `fromLog` (the log's own events
 * after the applied part, already checked by its reader), exactly those are applied, and a
 * delivered event that is not among them, or differs from the one there, is rejected.
 */
export function planRunBatch<T>(
  progress: LogCursorState,
  delivered: ReadonlyArray<Delivered<T>>,
  fromLog?: readonly RunEvent[],
): RunBatchPlan<T> {
  const plan: RunBatchPlan<T> = { apply: [], settled: [], rejected: [], gap: false };
  const sorted = [...delivered].sort((a, b) => a.event.seq - b.event.seq);
  if (fromLog) return planFromLog(plan, progress, sorted, fromLog);
  const cursor = new RunLogCursor(progress);
  const accepted = new Map<number, RunEvent>();
  for (const d of sorted) {
    // Applied before, or the very same event twice in this batch (a redelivery overlapping it).
    const same = accepted.get(d.event.seq);
    if (d.event.seq <= progress.lastSeq || (same && sameEvent(same, d.event))) {
      plan.settled.push(d.item);
      continue;
    }
    const verdict = cursor.accept(d.event);
    if (verdict.ok) {
      accepted.set(d.event.seq, d.event);
      plan.apply.push(d.event);
      plan.settled.push(d.item);
    } else if (verdict.breach === 'seq_gap') {
      return { apply: [], settled: [], rejected: [], gap: true };
    } else {
      plan.rejected.push({
        item: d.item,
        kind: verdict.breach === 'duplicate_seq' ? 'duplicate_seq' : 'after_terminal',
        reason: verdict.reason,
      });
    }
  }
  return plan;
}

function planFromLog<T>(
  plan: RunBatchPlan<T>,
  progress: LogCursorState,
  sorted: ReadonlyArray<Delivered<T>>,
  fromLog: readonly RunEvent[],
): RunBatchPlan<T> {
  const inLog = new Map(fromLog.map((e) => [e.seq, e]));
  plan.apply = fromLog.filter((e) => e.seq > progress.lastSeq);
  for (const d of sorted) {
    const logged = inLog.get(d.event.seq);
    if (logged && sameEvent(logged, d.event)) plan.settled.push(d.item);
    else if (d.event.seq <= progress.lastSeq && !logged) plan.settled.push(d.item);
    else if (logged)
      plan.rejected.push({ item: d.item, kind: 'duplicate_seq', reason: `seq ${d.event.seq} differs from the log's event at that seq` });
    else
      plan.rejected.push({
        item: d.item,
        kind: 'not_in_log',
        reason: `seq ${d.event.seq} is not part of the run's log (a gap, or after its end)`,
      });
  }
  return plan;
}

function sameEvent(a: RunEvent, b: RunEvent): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
