import type { RunEvent } from '@spindle/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { followRun, type StreamState } from './run-stream';

const RUN = 'run_01';
const ev = (seq: number, type = 'node.started') => ({ seq, type, runId: RUN }) as unknown as RunEvent;
const frame = (e: RunEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

/** One answer of the fake gateway: an SSE body (left open unless `end`), JSON, or a refusal. */
type Answer = { sse: string[]; end?: boolean } | { json: unknown } | { status: number };

/** A fake gateway: answers each request with the next answer queued for its kind, and records it. */
function fakeGateway(streams: Answer[], logReads: Answer[] = []) {
  const requests: Array<{ url: string; headers: Headers; signal?: AbortSignal }> = [];
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    requests.push({ url, headers, signal: init.signal ?? undefined });
    const streamed = headers.get('accept') === 'text/event-stream';
    const answer = (streamed ? streams : logReads).shift();
    if (!answer) return new Promise<Response>(() => undefined);
    if ('status' in answer) return Response.json({ code: 'unauthenticated', detail: 'the token expired' }, { status: answer.status });
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
  const seen = { events: [] as number[], tokens: [] as string[], states: [] as StreamState[] };
  const close = followRun(RUN, afterSeq, {
    onEvents: (events) => seen.events.push(...events.map((e) => e.seq)),
    onToken: (t) => seen.tokens.push(t.delta),
    onState: (s) => seen.states.push(s),
  });
  return { seen, close };
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 5 });

describe('followRun', () => {
  beforeEach(() => {
    const store = new Map<string, string>([['spindle.credential', 'spk_test']]);
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
      clear: () => store.clear(),
    });
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => setTimeout(f, 0));
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
    const { seen } = follow(1);
    await until(() => seen.states.includes('ended'));
    await until(() => seen.events.length === 2);
    expect(seen.events).toEqual([2, 3]);
    expect(seen.tokens).toEqual(['hi']);
    expect(seen.states).toEqual(['live', 'ended']);
    expect(gateway.requests[0].url).toBe(`/v1/runs/${RUN}/events?after=1`);
    expect(gateway.requests[0].headers.get('authorization')).toBe('Bearer spk_test');
    // The connection is let go at the run's end.
    expect(gateway.requests[0].signal?.aborted).toBe(true);
  });

  it('fills a gap from the log before going on', async () => {
    const gateway = fakeGateway([{ sse: [frame(ev(2)) + frame(ev(5))] }], [{ json: { events: [ev(3), ev(4), ev(5)] } }]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen, close } = follow(1);
    await until(() => seen.events.length === 4);
    expect(seen.events).toEqual([2, 3, 4, 5]);
    expect(gateway.requests[1].url).toBe(`/v1/runs/${RUN}/events?after=2`);
    close();
  });

  it('reconnects from the last seq after a broken stream, without repeating an event', async () => {
    const gateway = fakeGateway([{ sse: [frame(ev(1)), frame(ev(2))], end: true }, { sse: [frame(ev(2)) + frame(ev(3, 'run.failed'))] }]);
    vi.stubGlobal('fetch', gateway.fetch);
    const { seen } = follow(0);
    await until(() => seen.states.includes('ended'));
    await until(() => seen.events.length === 3);
    expect(seen.events).toEqual([1, 2, 3]);
    expect(seen.states).toEqual(['live', 'reconnecting', 'live', 'ended']);
    expect(gateway.requests.map((r) => r.url)).toEqual([`/v1/runs/${RUN}/events?after=0`, `/v1/runs/${RUN}/events?after=2`]);
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

  it('stops when the credential is refused, and aborts the connection on close', async () => {
    const refused = fakeGateway([{ status: 401 }, { sse: [] }]);
    vi.stubGlobal('fetch', refused.fetch);
    vi.useFakeTimers();
    const first = follow(0);
    // Far past every backoff: no second attempt.
    await vi.advanceTimersByTimeAsync(60_000);
    vi.useRealTimers();
    expect(refused.requests).toHaveLength(1);
    expect(first.seen.states).toEqual([]);

    const open = fakeGateway([{ sse: [frame(ev(1))] }]);
    vi.stubGlobal('fetch', open.fetch);
    const second = follow(0);
    await until(() => second.seen.events.length === 1);
    second.close();
    expect(open.requests[0].signal?.aborted).toBe(true);
  });
});
