import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEgressUrl, createEgressGuard, noInternalEgress, parseEgressAllowList, type EgressGuard } from '@spindle/egress';
import { postWebhook } from './webhook-post';

const rules = { allowHttp: true, field: 'url', allowListVariable: 'SPINDLE_WEBHOOK_ALLOWED_HOSTS' };

describe('a webhook attempt through the egress guard', () => {
  let server: Server;
  let port: number;
  const received: string[] = [];
  const guards: EgressGuard[] = [];
  // `receiver.test` is a public-looking name whose DNS answers loopback by the time of delivery.
  const rebound = () => {
    const guard = createEgressGuard(noInternalEgress, { resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    guards.push(guard);
    return guard;
  };
  const post = (guard: EgressGuard, url: string) => postWebhook(guard.fetch, { url, body: '{}', headers: {}, timeoutMs: 5_000 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(200).end('thanks');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all(guards.map((g) => g.close()));
    await new Promise((resolve) => server.close(resolve));
  });

  it('is refused at connect, with egress_refused, when a name saved as public resolves to loopback', async () => {
    const url = checkEgressUrl(`http://receiver.test:${port}/in`, noInternalEgress, rules).href;
    expect(await post(rebound(), url)).toEqual({
      statusCode: null,
      error: 'egress_refused: receiver.test resolves to internal address 127.0.0.1',
      response: null,
    });
    expect(await post(rebound(), `http://127.0.0.1:${port}/literal`)).toEqual({
      statusCode: null,
      error: 'egress_refused: 127.0.0.1 is an internal address',
      response: null,
    });
    expect(received).toEqual([]);
  });

  it('reaches a receiver the operator allowed, and keeps the start of its answer', async () => {
    const guard = createEgressGuard(parseEgressAllowList('127.0.0.1', 'SPINDLE_WEBHOOK_ALLOWED_HOSTS'));
    guards.push(guard);
    expect(await post(guard, `http://127.0.0.1:${port}/allowed`)).toEqual({ statusCode: 200, error: null, response: 'thanks' });
    expect(received).toEqual(['/allowed']);
  });
});
