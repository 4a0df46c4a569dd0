import { connect } from 'node:net';
import { eventually, providerGate, startStack, type Stack } from '@spindle/testing';

const PER_KEY = 2;
const HEADERS_TIMEOUT_MS = 1_000;
const asksTheModel = { kind: 'graph', nodes: [{ id: 'ask', type: 'llm', model: 'compatible:m', prompt: 'hi' }] };

/** Limits on open event streams per key (429 too_many_streams) and the headers timeout against slowloris clients. */
describe('stream limits and slow clients', () => {
  let stack: Stack;
  const gate = providerGate();
  let runId: string;

  beforeAll(async () => {
    stack = await startStack({
      // The run stays running (its model call waits at the gate), so its event streams stay open.
      reply: (async () => {
        await gate.passed();
        return { text: 'ok' };
      }) as never,
      serviceEnv: (s): Record<string, string> =>
        s === 'gateway' ? { SPINDLE_STREAMS_PER_KEY: String(PER_KEY), GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) } : {},
    });
    gate.hold();
    expect((await stack.api('/v1/workflows/model', { method: 'PUT', body: JSON.stringify(asksTheModel) })).status).toBe(201);
    const started = await stack.api('/v1/workflows/model/runs', { method: 'POST', body: '{}' });
    runId = ((await started.json()) as { runId: string }).runId;
  });
  afterAll(async () => {
    gate.release();
    await stack?.stop();
  });

  const openStream = async () => {
    const abort = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { ...stack.auth, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    return { res, abort };
  };

  it('refuses exactly one of limit+1 streams of one key with a 429 problem, and admits again once one closes', async () => {
    const streams = await Promise.all(Array.from({ length: PER_KEY + 1 }, openStream));
    const refused = streams.filter((s) => s.res.status === 429);
    expect(streams.map((s) => s.res.status).sort()).toEqual([200, 200, 429]);
    const [{ res }] = refused;
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ status: 429, code: 'too_many_streams' });

    const open = streams.filter((s) => s.res.status === 200);
    open[0].abort.abort();
    // The slot comes back when the gateway sees the connection close.
    const again = await eventually(async () => {
      const next = await openStream();
      expect(next.res.status).toBe(200);
      return next;
    });
    for (const s of [open[1], again]) s.abort.abort();
  });

  it('closes a connection whose headers arrive byte by byte slower than the headers timeout, answering 408', async () => {
    const socket = connect(Number(new URL(stack.gatewayUrl).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
    // Headers that never end: one byte every 100 ms, far past the timeout before the blank line could come.
    const headers = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n' + 'X-Slow: a\r\n'.repeat(1_000);
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(headers[sent++]);
    }, 100);
    // Node's default (60 s, checked every 30 s) would still be waiting when this gives up.
    const deadline = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15 * HEADERS_TIMEOUT_MS).unref());
    const wasClosed = await Promise.race([closed, deadline]);
    clearInterval(drip);
    socket.destroy();
    expect(wasClosed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('application/problem+json');
  });
});
