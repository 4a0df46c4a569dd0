import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressGuard, guardedLookup, literalRefusal, type EgressGuard, type Resolve } from './egress-guard';
import { noInternalEgress, parseEgressAllowList } from './egress-policy';
import { checkEgressUrl } from './egress-url';

/** A DNS that answers `hooks.test` with loopback, as a rebound public name would. */
const rebinding: Resolve = async (hostname) =>
  hostname.replace(/\.$/, '') === 'hooks.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '93.184.216.34', family: 4 }];

describe('egress guard at connect', () => {
  let server: Server;
  let port: number;
  const received: string[] = [];
  const guards: EgressGuard[] = [];
  const guard = (allow: string, resolve?: Resolve) => {
    const made = createEgressGuard(parseEgressAllowList(allow, 'TEST'), { resolve });
    guards.push(made);
    return made;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(req.url ?? '');
      if (req.url === '/to-localhost') return res.writeHead(302, { location: `http://localhost:${port}/landed` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all(guards.map((g) => g.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => received.splice(0));

  it('refuses a name that passed the save check but resolves to loopback at connect, before a byte is sent', async () => {
    const url = `http://hooks.test:${port}/in`;
    expect(checkEgressUrl(url, noInternalEgress, { allowHttp: true, field: 'url', allowListVariable: 'TEST' }).href).toBe(url);
    await expect(guard('', rebinding).fetch(url)).rejects.toMatchObject({
      code: 'egress_refused',
      message: 'hooks.test resolves to internal address 127.0.0.1',
    });
    await expect(guard('', rebinding).fetch(`http://hooks.test.:${port}/in`)).rejects.toMatchObject({ code: 'egress_refused' });
    expect(received).toEqual([]);
  });

  it('refuses localhost as the system resolves it, and internal IP literals however they are written', async () => {
    for (const url of [
      `http://localhost:${port}/`,
      `http://127.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::7f00:1]:${port}/`,
    ])
      await expect({
        url,
        refused: await guard('')
          .fetch(url)
          .then(
            () => 'reached',
            (e: { code?: string }) => e.code,
          ),
      }).toEqual({
        url,
        refused: 'egress_refused',
      });
    expect(received).toEqual([]);
  });

  it('reaches an internal target the operator names by host, literal or network', async () => {
    for (const [allow, url] of [
      ['hooks.test', `http://hooks.test:${port}/by-name`],
      ['127.0.0.1', `http://127.0.0.1:${port}/by-literal`],
      ['127.0.0.0/8', `http://hooks.test:${port}/by-network`],
    ]) {
      const response = await guard(allow, rebinding).fetch(url);
      expect({ allow, status: response.status, body: await response.text() }).toEqual({ allow, status: 200, body: 'hello' });
    }
    expect(received).toEqual(['/by-name', '/by-literal', '/by-network']);
  });

  it('checks each redirect as its own connection', async () => {
    await expect(guard('127.0.0.1').fetch(`http://127.0.0.1:${port}/to-localhost`)).rejects.toMatchObject({ code: 'egress_refused' });
    expect(received).toEqual(['/to-localhost']);
  });

  it('gives node:http clients the same checks as a lookup and a literal check', async () => {
    const resolve = (allow: string, host: string) =>
      new Promise<string>((done) =>
        guardedLookup(parseEgressAllowList(allow, 'TEST'))(host, {}, (err, address) =>
          done(err ? ((err as { code?: string }).code ?? err.message) : String(address)),
        ),
      );
    expect(await resolve('', 'localhost')).toBe('egress_refused');
    expect(await resolve('localhost', 'localhost')).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(literalRefusal('[::7f00:1]', noInternalEgress)?.code).toBe('egress_refused');
    expect(literalRefusal('127.0.0.1', parseEgressAllowList('127.0.0.1', 'TEST'))).toBeUndefined();
    expect(literalRefusal('93.184.216.34', noInternalEgress)).toBeUndefined();
    expect(literalRefusal('hooks.example', noInternalEgress)).toBeUndefined();
  });
});
