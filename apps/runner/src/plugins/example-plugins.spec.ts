import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PublicError } from '@spindle/contracts';
import { createEgressGuard, parseEgressAllowList, type EgressGuard, type Resolve } from '@spindle/egress';
import { loadPlugins } from './plugin-loader';
import { recordingVoice } from './user-code-voice.fixture';

const guards: EgressGuard[] = [];
afterAll(() => Promise.all(guards.map((g) => g.close())));

/** The shipped examples, loaded the way `npm start` does, with the runner's guard as `SPINDLE_EGRESS_ALLOWED_HOSTS=<allow>` makes it. */
function examplesWith(allow: string, resolve?: Resolve) {
  const guard = createEgressGuard(parseEgressAllowList(allow, 'SPINDLE_EGRESS_ALLOWED_HOSTS'), { resolve });
  guards.push(guard);
  return loadPlugins(['examples/plugins/calculator.js', 'examples/plugins/http-request.js', 'examples/plugins/order-lookup.js'], {
    cwd: join(__dirname, '../../../..'),
    fetch: guard.fetch,
  });
}
// The local test server is an internal address the operator allowed.
const { tools, functions } = examplesWith('127.0.0.1');
const ctx = () => ({ ...recordingVoice(), runId: 'run-1', nodeId: 'agent', callId: 'call-1', signal: new AbortController().signal });

/** Sets env vars for each test of the enclosing describe and restores them after it. */
function withEnv(vars: Record<string, string>): void {
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

describe('calculator', () => {
  const calc = async (expression: string) => ((await tools.call('calculator', { expression }, ctx())) as { result: number }).result;

  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['2 ^ -1', 0.5],
    ['10 / 4 - 0.5', 2],
    ['1.5e2 + .5', 150.5],
    ['--3', 3],
    ['((((7))))', 7],
  ])('evaluates %s = %d', async (expression, expected) => {
    expect(await calc(expression)).toBe(expected);
  });

  it.each([
    ['process.exit(1)', /unexpected "p" at position 1/],
    ['2 ** 3', /unexpected "\*" at position 4/],
    ['1 +', /unexpected end of expression/],
    ['(1 + 2', /expected "\)"/],
    ['1.2.3', /expected an operator/],
    ['1 / 0', /division by zero/],
    ['9'.repeat(400) + ' ^ 9', /not a finite number/],
    ['('.repeat(200) + '1' + ')'.repeat(200), /nests deeper than 64/],
    ['   ', /empty/],
  ])('refuses %s with a public error', async (expression, message) => {
    const error = await tools.call('calculator', { expression }, ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublicError);
    expect((error as Error).message).toMatch(message);
  });

  it('is also a function writing the number to state', async () => {
    const fn = functions.get('calculate');
    await expect(
      fn?.({
        ...recordingVoice(),
        args: { expression: '6 * 7' },
        state: {},
        nodeId: 'n',
        runId: 'r',
        signal: new AbortController().signal,
      }),
    ).resolves.toEqual({ result: 42 });
    await expect(
      fn?.({
        ...recordingVoice(),
        args: { expression: '1+1', into: 'two' },
        state: {},
        nodeId: 'n',
        runId: 'r',
        signal: new AbortController().signal,
      }),
    ).resolves.toEqual({ two: 2 });
  });
});

describe('http_request', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/redirect') return res.writeHead(302, { location: 'http://example.com/' }).end();
        if (req.url === '/big') return res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
        res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': 'session=secret', 'x-internal': 'no' });
        res.end(JSON.stringify({ method: req.method, url: req.url, body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  describe('with 127.0.0.1 allowed', () => {
    withEnv({ SPINDLE_HTTP_ALLOWLIST: 'api.example.com, 127.0.0.1', SPINDLE_HTTP_MAX_BODY_BYTES: '1000' });

    it('GETs and POSTs, keeping only the harmless headers', async () => {
      const get = (await tools.call('http_request', { url: `${base}/hello?a=1` }, ctx())) as { headers: Record<string, string> };
      expect(get).toEqual({
        status: 201,
        ok: true,
        truncated: false,
        headers: expect.any(Object),
        body: JSON.stringify({ method: 'GET', url: '/hello?a=1', body: '' }),
      });
      // The server's set-cookie and x-internal headers are not passed on.
      expect(Object.keys(get.headers).sort()).toEqual(['content-type', 'date']);
      const post = (await tools.call(
        'http_request',
        { url: `${base}/orders`, method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } },
        ctx(),
      )) as { body: string };
      expect(JSON.parse(post.body)).toEqual({ method: 'POST', url: '/orders', body: '{"n":1}' });
    });

    it('truncates a long body and returns a redirect instead of following it', async () => {
      await expect(tools.call('http_request', { url: `${base}/big` }, ctx())).resolves.toMatchObject({
        body: 'x'.repeat(1000),
        truncated: true,
      });
      await expect(tools.call('http_request', { url: `${base}/redirect` }, ctx())).resolves.toMatchObject({
        status: 302,
        ok: false,
        headers: { location: 'http://example.com/' },
      });
    });

    it('refuses a host outside the allow-list with a public error', async () => {
      const error = await tools.call('http_request', { url: 'http://example.com/' }, ctx()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PublicError);
      expect((error as Error).message).toBe('host "example.com" is not in the allow-list (SPINDLE_HTTP_ALLOWLIST)');
      await expect(tools.call('http_request', { url: 'file:///etc/passwd' }, ctx())).rejects.toThrow(
        'only http and https URLs are allowed, not file:',
      );
    });
  });

  describe('with names allowed that resolve to loopback, but no internal address allowed', () => {
    withEnv({ SPINDLE_HTTP_ALLOWLIST: 'api.test, localhost' });

    it('refuses at connect with egress_refused, though the name is on the plugin allow-list', async () => {
      // `api.test` looks public; its DNS answers loopback when the call connects.
      const rebinding: Resolve = async () => [{ address: '127.0.0.1', family: 4 }];
      const port = (server.address() as AddressInfo).port;
      for (const [loaded, url] of [
        [examplesWith('', rebinding), `http://api.test:${port}/hello`],
        [examplesWith(''), `http://localhost:${port}/hello`],
      ] as const) {
        const error = await loaded.tools.call('http_request', { url }, ctx()).catch((e: unknown) => e);
        expect({ url, code: (error as { code?: string }).code }).toEqual({ url, code: 'egress_refused' });
        expect((error as Error).message).toMatch(/resolves to internal address/);
      }
    });

    it('reaches it once the operator allows the name as an internal host', async () => {
      const port = (server.address() as AddressInfo).port;
      const loaded = examplesWith('localhost');
      await expect(loaded.tools.call('http_request', { url: `http://localhost:${port}/hello` }, ctx())).resolves.toMatchObject({
        status: 201,
      });
    });
  });

  describe('with only another port allowed', () => {
    withEnv({ SPINDLE_HTTP_ALLOWLIST: '127.0.0.1:1' });

    it('refuses the same host on a port not listed', async () => {
      await expect(tools.call('http_request', { url: `${base}/` }, ctx())).rejects.toThrow(/is not in the allow-list/);
    });
  });
});

describe('lookup_order', () => {
  withEnv({ ORDER_LOOKUP_LATENCY_MS: '1', ORDER_LOOKUP_FAILURE_RATE: '0' });

  it('returns a known order, reporting what the lookup cost and that it found it', async () => {
    const voice = recordingVoice();
    await expect(tools.call('lookup_order', { orderId: 'a-1002' }, { ...ctx(), ...voice })).resolves.toMatchObject({
      id: 'A-1002',
      status: 'shipped',
      carrier: 'DHL',
    });
    expect(voice.said).toEqual([
      { usage: { costUsd: 0.0001, units: { lookups: 1 }, label: 'order service lookup' } },
      { emit: { name: 'order.looked_up', data: { orderId: 'A-1002', status: 'shipped' } } },
    ]);
  });

  it('answers an unknown id with a public "not found"', async () => {
    const error = await tools.call('lookup_order', { orderId: 'Z-1' }, ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublicError);
    expect((error as Error).message).toBe('order Z-1 not found');
  });

  it('fails FAIL- ids every time, after its retries, with a public error', async () => {
    const voice = recordingVoice();
    const error = await tools.call('lookup_order', { orderId: 'FAIL-7' }, { ...ctx(), ...voice }).catch((e: unknown) => e);
    // Two failed tries are told (the third's error is thrown); none reached the service, so none cost.
    expect(voice.said.map((s) => ('attempt' in s ? s.attempt.attempt : s))).toEqual([1, 2]);
    expect(error).toBeInstanceOf(PublicError);
    expect((error as PublicError).message).toBe('order service temporarily unavailable while looking up FAIL-7');
    expect((error as PublicError).data).toEqual({ retryable: true });
  });

  it('refuses an empty id before calling the service', async () => {
    await expect(tools.call('lookup_order', { orderId: '' }, ctx())).rejects.toMatchObject({
      code: 'validation_failed',
      issues: [{ field: 'orderId' }],
    });
  });
});
