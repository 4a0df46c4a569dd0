import type { RunEvent, RunEventType } from '@spindle/contracts';
import { api, ApiProblem, authorizedFetch } from './client';
import { createSseParser, type SseMessage } from '@spindle/client';

export type StreamState = 'live' | 'reconnecting' | 'ended';

export interface RunStreamHandlers {
  onEvents(events: RunEvent[]): void;
  onToken(token: { spanId: string; nodeId: string; delta: string }): void;
  onState(state: StreamState): void;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/**
 * Follows a run's SSE stream after `afterSeq`, read with `fetch` because `EventSource` cannot send
 * the credential. When the stream breaks (the gateway restarts, an error answer) a new one is
 * opened from the last seq seen, backing off from 0.5 s up to 10 s. Events are de-duplicated by
 * `seq` and a gap is filled from the log before going on, so a reconnect never repeats or loses
 * one; meanwhile the view stays as it is and only says so. Ends at the run's end, on close, and
 * when the gateway refuses the credential (the console returns to sign-in).
 */
export function followRun(runId: string, afterSeq: number, handlers: RunStreamHandlers): () => void {
  let lastSeq = afterSeq;
  let stopped = false;
  let closed = false;
  /** Aborts the open connection (at the run's end, or on close); a gap being filled still completes. */
  const connection = new AbortController();
  const batch: RunEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const ready = batch.splice(0);
    if (ready.length) void filling.then(() => handlers.onEvents(ready));
  };
  let filling: Promise<void> = Promise.resolve();
  const stop = () => {
    stopped = true;
    connection.abort();
  };
  const onEvent = (event: RunEvent) => {
    if (event.seq <= lastSeq) return;
    if (event.seq > lastSeq + 1) {
      // Never show a log with a hole: fetch what is missing before going on. What came before
      // the gap is handed over first, so the view gets every event in order.
      const from = lastSeq;
      flush();
      filling = filling.then(() => fillGap(runId, from, event.seq, handlers, () => closed));
    }
    lastSeq = event.seq;
    batch.push(event);
    // One render per animation frame, however fast events arrive.
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(flush);
    }
    if (TERMINAL.has(event.type)) {
      stop();
      flush();
      handlers.onState('ended');
    }
  };
  const onMessage = (message: SseMessage) => {
    if (stopped) return;
    if (message.event === 'token') handlers.onToken(JSON.parse(message.data));
    else if (Object.hasOwn(EVENT_NAMES, message.event)) onEvent(JSON.parse(message.data) as RunEvent);
  };
  const follow = async () => {
    let backoffMs = FIRST_BACKOFF_MS;
    while (!stopped) {
      try {
        const opened = () => {
          backoffMs = FIRST_BACKOFF_MS;
          handlers.onState('live');
        };
        await readStream(`/v1/runs/${runId}/events?after=${lastSeq}`, connection.signal, opened, onMessage);
      } catch (e) {
        // A refused credential ends the session; sign-in takes over the screen.
        if (e instanceof ApiProblem && e.status === 401) stop();
      }
      if (stopped) return;
      handlers.onState('reconnecting');
      await pause(backoffMs, connection.signal);
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }
  };
  void follow();
  return () => {
    closed = true;
    stop();
  };
}

/** Reads one SSE response to its end; throws if it cannot be opened or breaks. */
async function readStream(url: string, signal: AbortSignal, onOpen: () => void, onMessage: (m: SseMessage) => void): Promise<void> {
  const res = await authorizedFetch(url, { headers: { accept: 'text/event-stream' }, cache: 'no-store', signal });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new Error(`the event stream answered ${res.status}`);
  }
  onOpen();
  const parser = createSseParser(onMessage);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parser.end();
    parser.push(value);
  }
}

/**
 * Fetches the events between two seqs from the log. A gateway that is away is waited for (the
 * view must not go on with a hole); a refusal that waiting cannot change gives up.
 */
async function fillGap(runId: string, afterSeq: number, beforeSeq: number, handlers: RunStreamHandlers, closed: () => boolean) {
  for (let backoffMs = FIRST_BACKOFF_MS; !closed(); backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS)) {
    try {
      const { events } = await api.events(runId, afterSeq);
      return handlers.onEvents(events.filter((e) => e.seq > afterSeq && e.seq < beforeSeq));
    } catch (e) {
      if (e instanceof ApiProblem && e.status < 500) return;
    }
    await pause(backoffMs);
  }
}

/** Waits `ms`, or less if `signal` aborts meanwhile. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/**
 * The SSE event names that carry a run event: one key per event type, so a new type does not
 * compile until the console lists it. Other names (`token`, `error`) are not run events.
 */
const EVENT_NAMES: Record<RunEventType, true> = {
  'run.queued': true,
  'run.started': true,
  'run.awaiting': true,
  'run.resumed': true,
  'run.yielded': true,
  'run.completed': true,
  'run.failed': true,
  'run.canceled': true,
  'node.started': true,
  'node.completed': true,
  'node.failed': true,
  'model.started': true,
  'model.completed': true,
  'model.failed': true,
  'tool.called': true,
  'tool.returned': true,
  'loop.iteration': true,
  'branch.started': true,
  'branch.completed': true,
  'input.requested': true,
  'input.answered': true,
  'approval.requested': true,
  'approval.resolved': true,
  'checkpoint.saved': true,
  'context.truncated': true,
  custom: true,
};
