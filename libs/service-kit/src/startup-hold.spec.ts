import { createServer } from 'node:net';
import { SpindleError } from '@spindle/contracts';
import { StartupHold } from './startup-hold';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const outage = new SpindleError('database_unavailable', 'PostgreSQL does not answer yet', { retryAfterSec: 5 });

describe('StartupHold', () => {
  let hold: StartupHold;
  let port: number;
  const get = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);

  beforeEach(async () => {
    hold = new StartupHold();
    port = await freePort();
    hold.arm(port, '127.0.0.1');
  });
  afterEach(() => hold.release());

  it('leaves the port closed while nothing waits', async () => {
    expect(hold.holding).toBe(false);
    await expect(get('/healthz')).rejects.toThrow();
  });

  it('answers for a waiting service: alive, not ready on what it waits for, a 503 problem with Retry-After elsewhere', async () => {
    await hold.waitingFor('postgres', outage);
    const health = await get('/healthz');
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await get('/readyz');
    expect([ready.status, await ready.json()]).toEqual([
      503,
      { status: 'not_ready', checks: { postgres: 'down: PostgreSQL does not answer yet' } },
    ]);
    const route = await get('/v1/runs?limit=1', { method: 'POST', body: '{}' });
    expect(route.status).toBe(503);
    expect(route.headers.get('content-type')).toBe('application/problem+json');
    expect(route.headers.get('retry-after')).toBe('5');
    expect(await route.json()).toEqual({ status: 503, code: 'database_unavailable', detail: 'PostgreSQL does not answer yet' });
  });

  it("answers in the service's own format when it gives one", async () => {
    hold.arm(port, '127.0.0.1', (error, url) => ({ status: 503, headers: { 'x-code': error.code }, body: url }));
    await hold.waitingFor('postgres', outage);
    const route = await get('/v1/workflows');
    expect([route.status, route.headers.get('x-code'), await route.text()]).toEqual([503, 'database_unavailable', '/v1/workflows']);
  });

  it('gives the port back on release, so the service can listen on it', async () => {
    await hold.waitingFor('postgres', outage);
    await get('/healthz');
    await hold.release();
    expect(hold.holding).toBe(false);
    const service = createServer();
    await new Promise<void>((resolve, reject) => service.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((r) => service.close(r));
  });
});
