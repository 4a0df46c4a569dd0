import type { RunEvent, RunEventType } from '@spindle/contracts';

export type StreamState = 'live' | 'reconnecting' | 'ended';

export interface RunStreamHandlers {
  onEvents(events: RunEvent[]): void;
  onToken(token: { spanId: string; nodeId: string; delta: string }): void;
  onState(state: StreamState): void;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);

/**
 * Follows a run's SSE stream after `afterSeq`. The browser's EventSource reconnects by itself and
 * sends `Last-Event-ID`; when it gives up (an error response while the gateway restarts) a new one
 * is opened from the last seq seen, backing off up to 10 s. Events are de-duplicated by `seq`, so
 * a reconnect never repeats or loses one; meanwhile the view stays as it is and only says so.
 * Closes at the run's end.
 */
export function followRun(runId: string, afterSeq: number, handlers: RunStreamHandlers): () => void {
  let lastSeq = afterSeq;
  let source: EventSource | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let backoffMs = 500;
  const batch: RunEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const ready = batch.splice(0);
    if (ready.length) void filling.then(() => handlers.onEvents(ready));
  };
  let filling: Promise<void> = Promise.resolve();
  const onEvent = (msg: MessageEvent<string>) => {
    const event = JSON.parse(msg.data) as RunEvent;
    if (event.seq <= lastSeq) return;
    if (event.seq > lastSeq + 1) {
      // Never show a log with a hole: fetch what is missing before going on.
      const from = lastSeq;
      filling = filling.then(() => fillGap(runId, from, event.seq, handlers));
    }
    lastSeq = event.seq;
    batch.push(event);
    // One render per animation frame, however fast events arrive.
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(flush);
    }
    if (TERMINAL.has(event.type)) {
      stopped = true;
      source?.close();
      flush();
      handlers.onState('ended');
    }
  };
  const connect = () => {
    if (stopped) return;
    const current = new EventSource(`/v1/runs/${runId}/events?after=${lastSeq}`);
    source = current;
    current.onopen = () => {
      backoffMs = 500;
      handlers.onState('live');
    };
    current.onerror = () => {
      if (stopped) return;
      handlers.onState('reconnecting');
      if (current.readyState !== EventSource.CLOSED) return;
      // The browser gave up on this one: open another from where the view is.
      retry = setTimeout(connect, backoffMs);
      backoffMs = Math.min(backoffMs * 2, 10_000);
    };
    for (const type of EVENT_TYPES) current.addEventListener(type, onEvent as EventListener);
    current.addEventListener('token', ((msg: MessageEvent<string>) => handlers.onToken(JSON.parse(msg.data))) as EventListener);
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
  };
}

async function fillGap(runId: string, afterSeq: number, beforeSeq: number, handlers: RunStreamHandlers): Promise<void> {
  const res = await fetch(`/v1/runs/${runId}/events?after=${afterSeq}`);
  if (!res.ok) return;
  const { events } = (await res.json()) as { events: RunEvent[] };
  handlers.onEvents(events.filter((e) => e.seq < beforeSeq));
}

/**
 * The SSE event names to listen to: one key per event type, so a new type does not compile until
 * the console lists it (the browser only delivers named events it listens for).
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
const EVENT_TYPES = Object.keys(EVENT_NAMES) as RunEventType[];
