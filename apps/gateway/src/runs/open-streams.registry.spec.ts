import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSpindleError, type Principal } from '@spindle/contracts';
import { Registry } from 'prom-client';
import { OpenStreamsRegistry } from './open-streams.registry';

const caller = (keyId: string, tenant = 'acme'): Principal => ({
  actor: { kind: 'key', id: keyId, name: keyId },
  tenant,
  scopes: new Set(['runs:read']),
  operator: false,
  via: 'api_key',
});

/**
 * The registry against real HTTP responses: each request to the server asks for a stream slot
 * and, once admitted, stays open until the test ends it one of the ways a stream ends.
 */
describe('OpenStreamsRegistry', () => {
  let server: Server;
  let streams: OpenStreamsRegistry;
  let metrics: Registry;
  const responses = new Map<string, ServerResponse>();
  const refusals: string[] = [];

  beforeEach(async () => {
    metrics = new Registry();
    streams = new OpenStreamsRegistry({ perKey: 2, perTenant: 3, retryAfterSec: 5 }, metrics);
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const [, key, name] = req.url!.split('/');
      try {
        streams.admit(caller(key), res, () => res.end());
      } catch (e) {
        refusals.push(isSpindleError(e) ? `${e.code} ${e.retryAfterSec}` : String(e));
        res.writeHead(429).end();
        return;
      }
      responses.set(name, res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    for (const res of responses.values()) res.destroy();
    responses.clear();
    refusals.length = 0;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Opens a stream and resolves with its status once the first bytes (or a refusal) arrive. */
  const open = (key: string, name: string) =>
    new Promise<{ status: number; closed: Promise<void>; abort: () => void }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: `/${key}/${name}`, agent: false });
      req.on('response', (res) => {
        const closed = new Promise<void>((done) => res.once('close', () => done()));
        res.resume();
        if (res.statusCode === 200) res.once('data', () => resolve({ status: 200, closed, abort: () => req.destroy() }));
        else resolve({ status: res.statusCode!, closed, abort: () => req.destroy() });
      });
      req.on('error', () => undefined);
      req.once('error', reject);
      req.end();
    });
  const released = async (key: string, expected: number) => {
    for (let i = 0; i < 200 && streams.countOf(caller(key)).key !== expected; i++) await new Promise((r) => setTimeout(r, 10));
    return streams.countOf(caller(key));
  };

  it('refuses a key past its limit with too_many_streams and Retry-After, and then its tenant past the tenant limit', async () => {
    expect((await open('k1', 'a')).status).toBe(200);
    expect((await open('k1', 'b')).status).toBe(200);
    expect((await open('k1', 'c')).status).toBe(429);
    expect((await open('k2', 'd')).status).toBe(200);
    expect((await open('k2', 'e')).status).toBe(429);
    expect(refusals).toEqual(['too_many_streams 5', 'too_many_streams 5']);
    const text = await metrics.metrics();
    expect(text).toContain('spindle_open_streams{tenant="acme"} 3');
    expect(text).toContain('spindle_streams_refused_total{tenant="acme",limit="key"} 1');
    expect(text).toContain('spindle_streams_refused_total{tenant="acme",limit="tenant"} 1');
  });

  it('gives the slot back when the client disconnects', async () => {
    const first = await open('k1', 'a');
    await open('k1', 'b');
    first.abort();
    expect(await released('k1', 1)).toEqual({ key: 1, tenant: 1 });
    expect((await open('k1', 'c')).status).toBe(200);
  });

  it('gives the slot back when the stream ends on our side (the run ended)', async () => {
    const first = await open('k1', 'a');
    responses.get('a')!.end();
    await first.closed;
    expect(await released('k1', 0)).toEqual({ key: 0, tenant: 0 });
  });

  it('gives the slot back when the stream fails (the response is destroyed with an error)', async () => {
    await open('k1', 'a');
    responses.get('a')!.destroy(new Error('the feed broke'));
    expect(await released('k1', 0)).toEqual({ key: 0, tenant: 0 });
  });

  it('ends every stream on shutdown and gives their slots back', async () => {
    const a = await open('k1', 'a');
    const b = await open('k2', 'b');
    streams.beforeApplicationShutdown();
    await Promise.all([a.closed, b.closed]);
    expect(await released('k1', 0)).toEqual({ key: 0, tenant: 0 });
    expect(streams.countOf(caller('k2'))).toEqual({ key: 0, tenant: 0 });
  });

  it('gives the slot of a refused request back once its problem answer is sent', async () => {
    // A slot taken before the handler fails (a 404 after admit) is released when that answer closes.
    server.removeAllListeners('request');
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      streams.admit(caller('k1'), res, () => res.end());
      res.writeHead(404).end();
    });
    const answer = await open('k1', 'a');
    expect(answer.status).toBe(404);
    expect(await released('k1', 0)).toEqual({ key: 0, tenant: 0 });
  });
});
