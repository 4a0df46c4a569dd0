import type { RunEvent } from '@spindle/contracts';
import { ZodError } from 'zod';

/** Reads a run's stored events with `seq > afterSeq`, in order. */
export type ReadRunLog = (runId: string, afterSeq: number) => Promise<RunEvent[]>;

/**
 * The events of one run to apply after `appliedSeq`, in seq order. They normally continue the
 * projection; when they do not (a failed batch is redelivered after later ones), the missing
 * events are read from the log, so what is applied is always the log in order. A log that
 * cannot be decoded (its bad event was dead-lettered) never will be: the batch is applied as is.
 */
export async function eventsToApply(
  runId: string,
  appliedSeq: number,
  batch: readonly RunEvent[],
  readLog: ReadRunLog,
  onUndecodable: (e: unknown) => void,
): Promise<RunEvent[]> {
  const fresh = inSeqOrder(batch.filter((e) => e.seq > appliedSeq));
  if (fresh.length === 0 || fresh.every((e, i) => e.seq === appliedSeq + 1 + i)) return fresh;
  try {
    return inSeqOrder([...(await readLog(runId, appliedSeq)), ...fresh]);
  } catch (e) {
    if (!(e instanceof ZodError || e instanceof SyntaxError)) throw e;
    onUndecodable(e);
    return fresh;
  }
}

/** Sorted by seq, one event per seq. */
function inSeqOrder(events: readonly RunEvent[]): RunEvent[] {
  return [...new Map(events.map((e) => [e.seq, e])).values()].sort((a, b) => a.seq - b.seq);
}
