import { jetstream } from '@nats-io/jetstream';
import { eventually, startNatsServer, startStack, testEnv, type NatsServerProcess, type Stack } from '@spindle/testing';
import { putHelloWorkflow, runHelloToEnd } from './hello-runs';

/**
 * Issue 26, item 4: with the JetStream store full, starts hung past 15 s (the append retried a
 * refusal for room as if NATS were slow) before a 503, and every /readyz said ready. Here a start
 * is refused at once with `507 storage_full`, the gateway says it is not ready, and once room is
 * made it is ready again and runs start, without restarting nats-server.
 */
describe('a full JetStream store', () => {
  let nats: NatsServerProcess;
  let stack: Stack;
  const gatewayReadiness = () => fetch(`${stack.gatewayUrl}/readyz`).then((r) => r.status);

  beforeAll(async () => {
    nats = await startNatsServer({ maxFileStore: '8MB' });
    stack = await startStack({ infra: { natsUrl: nats.url, databaseUrl: testEnv().databaseUrl } });
    await putHelloWorkflow(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await nats?.stop();
  });

  it('refuses starts with 507 storage_full, is not ready, and recovers once room is made', async () => {
    await runHelloToEnd(stack);

    // Something else takes the room: a stream of the operator's, filled to the limit.
    await stack.bus.jsm.streams.add({ name: 'FILLER', subjects: ['filler.>'] });
    const js = jetstream(stack.bus.nc);
    const block = new Uint8Array(256 * 1024);
    for (let i = 0; i < 64; i++) {
      const full = await js.publish('filler.x', block).then(
        () => false,
        (e: unknown) => /insufficient resources/.test(String((e as Error).message)),
      );
      if (full) break;
    }

    const start = await stack.api('/v1/workflows/hello/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Bo' } }) });
    expect(start.status).toBe(507);
    expect(Number(start.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await start.json()).toMatchObject({ code: 'storage_full', status: 507 });
    expect(await gatewayReadiness()).toBe(503);

    await stack.bus.jsm.streams.delete('FILLER');
    await eventually(async () => expect(await gatewayReadiness()).toBe(200), 100, 100);
    const after = await runHelloToEnd(stack);
    expect(after.log.at(-1)?.type).toBe('run.completed');
  });
});
