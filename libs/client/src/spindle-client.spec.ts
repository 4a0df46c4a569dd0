import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSpindleClient } from './spindle-client';
import { isSpindleApiError, SpindleApiError, SpindleProtocolError, SpindleUnreachableError } from './spindle-errors';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Answer = { status: number; headers?: Record<string, string>; body?: string };

/** A real HTTP server answering each request with the next scripted answer, and recording it. */
async function scriptedServer(answers: Answer[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = answers.shift() ?? { status: 500 };
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const json = (status: number, value: unknown, type = 'application/json'): Answer => ({
  status,
  headers: { 'content-type': type },
  body: JSON.stringify(value),
});

describe('createSpindleClient', () => {
  let server: Awaited<ReturnType<typeof scriptedServer>> | undefined;
  afterEach(() => server?.close());

  it('sends the token, JSON bodies, query parameters and the idempotency key, and parses the answer', async () => {
    const accepted = { runId: 'r1', workflow: { name: 'hello world', version: 2 }, status: 'queued', location: '/v1/runs/r1' };
    server = await scriptedServer([json(202, accepted), json(200, { runs: [], nextCursor: null }), { status: 204 }]);
    const spindle = createSpindleClient({ baseUrl: server.baseUrl, token: 'spk_x_y' });
    await expect(
      spindle.runs.start('hello world', { input: { name: 'Ada' }, parameters: { tone: 'dry' }, version: 2, idempotencyKey: 'k-1' }),
    ).resolves.toEqual(accepted);
    await expect(spindle.runs.list({ status: 'running', limit: 5 })).resolves.toEqual({ runs: [], nextCursor: null });
    await expect(spindle.workflows.delete('hello')).resolves.toBeUndefined();
    const [start, list, del] = server.seen;
    expect(start).toMatchObject({
      method: 'POST',
      url: '/v1/workflows/hello%20world/runs',
      body: '{"input":{"name":"Ada"},"parameters":{"tone":"dry"},"version":2}',
    });
    expect(start.headers).toMatchObject({ authorization: 'Bearer spk_x_y', 'idempotency-key': 'k-1', 'content-type': 'application/json' });
    expect(list).toMatchObject({ method: 'GET', url: '/v1/runs?status=running&limit=5', body: '' });
    expect(list.headers['content-type']).toBeUndefined();
    expect(del).toMatchObject({ method: 'DELETE', url: '/v1/workflows/hello' });
    // Without a body too, as the gateway's guard against cross-site requests asks.
    expect(del.headers['content-type']).toBe('application/json');
  });

  it('rejects a problem answer with SpindleApiError carrying status, code, title, detail, field errors and Retry-After', async () => {
    const problem = {
      type: 'https://spindle.dev/problems/validation_failed',
      title: 'validation failed',
      status: 400,
      code: 'validation_failed',
      detail: 'the body is not a start request',
      errors: [{ field: 'input', message: 'Required' }],
    };
    server = await scriptedServer([
      json(400, problem, 'application/problem+json'),
      { status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '7' }, body: '{"code":"rate_limited"}' },
    ]);
    const spindle = createSpindleClient({ baseUrl: server.baseUrl });
    const refused = await spindle.runs.start('w').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SpindleApiError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'validation_failed',
      title: 'validation failed',
      detail: 'the body is not a start request',
      errors: [{ field: 'input', message: 'Required' }],
      retryable: false,
    });
    expect((refused as Error).message).toBe('validation_failed: the body is not a start request');
    const limited = await spindle.me().catch((e: unknown) => e);
    expect(isSpindleApiError(limited, 'rate_limited')).toBe(true);
    expect(limited).toMatchObject({ status: 429, retryAfterSec: 7, retryable: true });
  });

  it('names a refusal without a problem body by its status, and refuses a 2xx answer that is not JSON', async () => {
    server = await scriptedServer([
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad Gateway</h1>' },
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>' },
    ]);
    const spindle = createSpindleClient({ baseUrl: server.baseUrl });
    await expect(spindle.runs.get('r1')).rejects.toMatchObject({ name: 'SpindleApiError', status: 502, code: 'service_unavailable' });
    await expect(spindle.runs.get('r1')).rejects.toBeInstanceOf(SpindleProtocolError);
  });

  it('rejects with SpindleUnreachableError naming where it looked when nothing listens', async () => {
    server = await scriptedServer([]);
    const baseUrl = server.baseUrl;
    await server.close();
    server = undefined;
    const error = await createSpindleClient({ baseUrl })
      .me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpindleUnreachableError);
    expect(error).toMatchObject({ url: baseUrl, code: 'unreachable' });
    expect((error as Error).message).toContain(baseUrl);
  });

  it('checks the JSON events against the run event schema', async () => {
    server = await scriptedServer([json(200, { events: [{ seq: 1, type: 'run.queued' }], lastSeq: 1, terminal: false })]);
    const error = await createSpindleClient({ baseUrl: server.baseUrl })
      .runs.events('r1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpindleProtocolError);
    expect((error as Error).message).toMatch(/not a run event/);
  });
});
