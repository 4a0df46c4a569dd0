import { checkRunEvent, type RunEvent } from '@spindle/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { onCredentialRejected } from './client';
import { followRun, type StreamState } from './run-stream';

const RUN = 'run_01';
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const DATA: Record<string, unknown> = {
  'node.started': { nodeType: 'agent', input: null },
  'run.completed': { output: {}, durationMs: 1, usage },
  'run.failed': { error: { code: 'internal', message: 'boom' }, durationMs: 1 },
  'run.canceled': {},
};
/** A run event that passes the run event schema (the client checks every event it yields). */
const ev = (seq: number, type = 'node.started'): RunEvent => {
  const checked = checkRunEvent({ runId: RUN, seq, at: '2026-01-01T00:00:00.000Z', spanId: `s${seq}`, path: 'n', type, data: DATA[type] });
  if (!checked.ok) throw new Error(checked.reason);
  return checked.event;
};
const frame = (e: RunEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const CODES: Record<number, string> = { 401: 'unauthenticated', 503: 'service_unavailable' };

/** One answer of the fake gateway: an SSE body (left open unless `end`), JSON, or a refusal. */
type Answer = { sse: string[]; end?: boolean } | { json: unknown } | { status: number };

/** A fake gateway: answers each request with the next answer queued for its kind (none: it never answers), and records it. */
function fakeGateway(streams: Answer[], logReads: Answer[] = []) {
  const requests: Array<{ url: string; headers: Headers; signal?: AbortSignal }> = [];
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    requests.push({ url, headers, signal: init.signal ?? undefined });
    const streamed = headers.get('accept') === 'text/event-stream';
    const answer = (streamed ? streams : logReads).shift();
    if (!answer) return new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    if ('status' in answer) return Response.json({ code: CODES[answer.status], detail: 'the gateway refused' }, { status: answer.status });
    if ('json' in answer) return Response.json(answer.json);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const text of answer.sse) controller.enqueue(new TextEncoder().encode(text));
        if (answer.end) controller.close();
        init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  return { fetch, requests };
}

/** Follows the run and collects what the view would get. */
function follow(afterSeq: number) {
  const seen = { batches: [] as number[][], tokens: [] as string[], states: [] as StreamState[], errors: [] as Error[] };
  const events = () => seen.batches.flat();
  const close = followRun(RUN, afterSeq, {
    onEvents: (batch) => seen.batches.push(batch.map((e) => e.seq)),
    onToken: (t) => seen.tokens.push(t.delta),
    onState: (s) => seen.states.push(s),
    onError: (e) => seen.errors.push(e),
  });
  return { seen, events, close };
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 5 });
const eventsUrl = `/v1/runs/${RUN}/events`;

describe('followRun', () => {
  let animationFrames: Array<() => void>;
  beforeEach(() => {
    const store = new Map<string, string>([['spindle.credential', 'spk_test']]);
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
      clear: () => store.clear(),
    });
    animationFrames = [];
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => {
      animationFrames.push(f);
      setTimeout(f, 0);
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends the credential, delivers events after the seq and tokens, and ends at the terminal event', async () => {
    const gateway = fakeGateway([
      {
        sse: [
          frame(ev(1)) + ': heartbeat\n\n' + frame(ev(2)),
          'event: token\ndata: {"spanId":"s","nodeId":"n","delta":"hi"}\n\n',
          frame(ev(3, 'run.completed')),
        ],
      },
    ]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen, events } = follow(1);
    await until(() => seen.states.includes('ended'));
    expect(events()).toEqual([2, 3]);
    expect(seen.tokens).toEqual(['hi']);
    expect(seen.states).toEqual(['live', 'ended']);
    expect(gateway.requests[0].url).toBe(`${eventsUrl}?after=1`);
    expect(gateway.requests[0].headers.get('authorization')).toBe('Bearer spk_test');
    expect(gateway.requests[0].headers.get('last-event-id')).toBeNull();
    // The connection is let go at the run's end.
    expect(gateway.requests[0].signal?.aborted).toBe(true);
  });

  it('hands events over once per animation frame, and the last batch at once at the run end', async () => {
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => void animationFrames.push(f));
    const gateway = fakeGateway([{ sse: [frame(ev(1)) + frame(ev(2)), frame(ev(3)) + frame(ev(4, 'run.completed'))] }]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen } = follow(0);
    await until(() => seen.states.includes('ended'));
    // No frame was drawn meanwhile: one batch, one frame asked for.
    expect(seen.batches).toEqual([[1, 2, 3, 4]]);
    expect(animationFrames).toHaveLength(1);
    animationFrames[0]();
    expect(seen.batches).toHaveLength(1);
  });

  it('fills a gap from the log before going on', async () => {
    const gateway = fakeGateway(
      [{ sse: [frame(ev(2)) + frame(ev(5))] }],
      [{ json: { events: [ev(3), ev(4), ev(5)], lastSeq: 5, terminal: false } }],
    );
    vi.stubGlobal('fetch', gateway.fetch);
    const { events, close } = follow(1);
    await until(() => events().length === 4);
    expect(events()).toEqual([2, 3, 4, 5]);
    expect(gateway.requests[1].url).toBe(`${eventsUrl}?after=2`);
    close();
  });

  it('reconnects with Last-Event-ID after a broken stream, without repeating an event', async () => {
    const gateway = fakeGateway([{ sse: [frame(ev(1)), frame(ev(2))], end: true }, { sse: [frame(ev(2)) + frame(ev(3, 'run.failed'))] }]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen, events } = follow(0);
    await until(() => seen.states.includes('ended'));
    expect(events()).toEqual([1, 2, 3]);
    expect(seen.states).toEqual(['live', 'reconnecting', 'live', 'ended']);
    expect(gateway.requests.map((r) => [r.url, r.headers.get('last-event-id')])).toEqual([
      [eventsUrl, null],
      [eventsUrl, '2'],
    ]);
  });

  it('keeps trying while the gateway answers with errors', async () => {
    const gateway = fakeGateway([{ status: 503 }, { sse: [frame(ev(1, 'run.canceled'))] }]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen } = follow(0);
    await until(() => seen.states.includes('ended'));
    expect(seen.states).toEqual(['reconnecting', 'live', 'ended']);
  });

  it('backs off from half a second to ten seconds between attempts', async () => {
    vi.useFakeTimers();
    const gateway = fakeGateway(Array.from({ length: 8 }, () => ({ status: 503 })));
    const at: number[] = [];
    vi.stubGlobal('fetch', (url: string, init?: RequestInit) => (at.push(Date.now()), gateway.fetch(url, init)));
    const { close } = follow(0);
    await vi.advanceTimersByTimeAsync(60_000);
    close();
    vi.useRealTimers();
    expect(at.slice(1).map((t, i) => t - at[i])).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });

  it('stops when the credential is refused and reports it (the session signs out), and aborts the connection on close', async () => {
    const rejected: string[] = [];
    onCredentialRejected((problem) => rejected.push(problem.code));
    const refused = fakeGateway([{ status: 401 }, { sse: [] }]);
    vi.stubGlobal('fetch', refused.fetch);
    vi.useFakeTimers();
    const first = follow(0);
    // Far past every backoff: no second attempt.
    await vi.advanceTimersByTimeAsync(60_000);
    vi.useRealTimers();
    expect(refused.requests).toHaveLength(1);
    expect(first.seen.states).toEqual([]);
    expect(first.seen.errors).toMatchObject([{ status: 401, code: 'unauthenticated' }]);
    expect(rejected).toEqual(['unauthenticated']);

    const open = fakeGateway([{ sse: [frame(ev(1))] }]);
    vi.stubGlobal('fetch', open.fetch);
    const second = follow(0);
    await until(() => second.events().length === 1);
    second.close();
    expect(open.requests[0].signal?.aborted).toBe(true);
    expect(second.seen.errors).toEqual([]);
  });
});
