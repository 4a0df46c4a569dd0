import type { RunEvent } from '@spindle/contracts';
import type { StreamToken } from '@spindle/client';
import { signedIn } from './client';

export type StreamState = 'live' | 'reconnecting' | 'ended';

export interface RunStreamHandlers {
  onEvents(events: RunEvent[]): void;
  onToken(token: StreamToken): void;
  onState(state: StreamState): void;
  /** The stream stopped on a refusal waiting cannot change (a `401` also signs out). */
  onError(error: Error): void;
}

/**
 * Follows a run's events after `afterSeq` with the client's `runs.follow`, which reconnects with
 * `Last-Event-ID` (backing off), drops repeats and fills gaps, so the view gets every event once
 * and in order; meanwhile the view stays as it is and only says it is reconnecting. Events are
 * handed over once per animation frame, however fast they arrive. Ends at the run's end (the
 * last batch is handed over at once) or on close; returns the close.
 */
export function followRun(runId: string, afterSeq: number, handlers: RunStreamHandlers): () => void {
  const closing = new AbortController();
  const batch: RunEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const ready = batch.splice(0);
    if (ready.length && !closing.signal.aborted) handlers.onEvents(ready);
  };
  const follow = signedIn(async (client) => {
    const events = client.runs.follow(runId, {
      after: afterSeq,
      signal: closing.signal,
      onToken: handlers.onToken,
      onConnection: (state) => handlers.onState(state === 'open' ? 'live' : 'reconnecting'),
    });
    for await (const event of events) {
      batch.push(event);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
    }
  });
  void follow.then(
    () => {
      if (closing.signal.aborted) return;
      flush();
      handlers.onState('ended');
    },
    (e: unknown) => {
      if (!closing.signal.aborted) handlers.onError(e instanceof Error ? e : new Error(String(e)));
    },
  );
  return () => closing.abort();
}
