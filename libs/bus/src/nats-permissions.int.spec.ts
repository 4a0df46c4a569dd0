import { busNames, type RunEventDraft } from '@spindle/contracts';
import { hasNatsServerBinary, startNatsServer, type NatsServerProcess } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { natsAuthorizationConfig, SPINDLE_SERVICES, type SpindleService } from './nats-permissions';
import { provisionStreams } from './provision-streams';
import { query, serveQueries } from './query-rpc';
import { readRunLog } from './run-log.reader';
import { purgeRunLog } from './run-erasure';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';
import { openPayloadStore } from './run-payloads';
import { deleteFileBytes, putFileBytes, readFileBytes } from './file-store';
import { announceCapabilities, readRunnerCapabilities, withdrawCapabilities } from './runner-capabilities';

const namespace = 'perm';
const custom = (n: number): RunEventDraft => ({ type: 'custom', spanId: 'root', path: 'root', data: { n } });

/** Issue 9: only the documented writers can append to a run log; every service can do its own job. */
(hasNatsServerBinary() ? describe : describe.skip)('NATS credentials and subject permissions per service', () => {
  let nats: NatsServerProcess;
  const buses = new Map<SpindleService, Bus>();
  const as = (service: SpindleService) => buses.get(service)!;

  beforeAll(async () => {
    nats = await startNatsServer({ config: natsAuthorizationConfig(busNames(namespace), (s) => JSON.stringify(`secret-${s}`)) });
    for (const service of SPINDLE_SERVICES) {
      buses.set(service, await connectBus({ url: nats.url, namespace, name: service, auth: { user: service, pass: `secret-${service}` } }));
    }
    // Every service provisions the streams at start: each must be allowed to.
    for (const bus of buses.values()) await provisionStreams(bus);
  });
  afterAll(async () => {
    for (const bus of buses.values()) await bus.close();
    await nats?.stop();
  });

  it("refuses a connection without credentials, or with another service's password", async () => {
    await expect(connectBus({ url: nats.url, namespace, name: 'nobody', connectTimeoutMs: 2_000 })).rejects.toThrow(/authorization|auth/i);
    await expect(
      connectBus({ url: nats.url, namespace, name: 'impostor', auth: { user: 'runner', pass: 'secret-gateway' }, connectTimeoutMs: 2_000 }),
    ).rejects.toThrow(/authorization|auth/i);
  });

  it('lets the runner, the gateway, the approval service and the dispatcher append to a run log, and no read model', async () => {
    const writer = new RunLogWriter(as('gateway'), 'run-perm', EMPTY_LOG);
    await writer.write(custom(1));
    for (const service of ['runner', 'approval', 'dispatcher'] as const) {
      const { position } = await readRunLog(as(service), 'run-perm');
      await new RunLogWriter(as(service), 'run-perm', position!).write(custom(2));
    }
    for (const service of ['trace-recorder', 'checkpoint'] as const) {
      const { position } = await readRunLog(as(service), 'run-perm');
      await expect(
        new RunLogWriter(as(service), 'run-perm', position!, { retryForMs: 0, attemptTimeoutMs: 1_000 }).write(custom(9)),
      ).rejects.toThrow(/permission/i);
    }
    expect((await readRunLog(as('checkpoint'), 'run-perm')).events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 2 }, { n: 2 }]);
  });

  it('lets each service answer its own queries and ask the ones it needs, and nothing else', async () => {
    const subs = serveQueries(as('trace-recorder'), 'trace', { ping: async () => ({ pong: true }) }, () => undefined);
    await as('trace-recorder').nc.flush();
    expect(await query(as('gateway'), 'trace', 'ping', {})).toEqual({ pong: true });
    // The checkpoint service may not answer trace queries: its subscription is refused.
    const impostor = serveQueries(as('checkpoint'), 'trace', { ping: async () => ({ pong: 'forged' }) }, () => undefined);
    await as('checkpoint')
      .nc.flush()
      .catch(() => undefined);
    for (let i = 0; i < 5; i++) expect(await query(as('gateway'), 'trace', 'ping', {})).toEqual({ pong: true });
    for (const s of [...subs, ...impostor]) s.unsubscribe();
  });

  it("lets the dispatcher answer its own queries and ask the trace recorder's and the checkpoint service's", async () => {
    // Its own subjects by name: `dispatcher` is not a QueryService of @spindle/contracts on this branch yet.
    const dispatcherSubject = `${namespace}.svc.dispatcher.ping`;
    const subs = [
      as('dispatcher').nc.subscribe(dispatcherSubject, {
        callback: (_err, msg) => {
          msg.respond('dispatcher');
        },
      }),
      ...serveQueries(as('trace-recorder'), 'trace', { ping: async () => ({ pong: 'trace' }) }, () => undefined),
      ...serveQueries(as('checkpoint'), 'checkpoint', { ping: async () => ({ pong: 'checkpoint' }) }, () => undefined),
    ];
    for (const service of ['dispatcher', 'trace-recorder', 'checkpoint'] as const) await as(service).nc.flush();
    expect((await as('gateway').nc.request(dispatcherSubject, '', { timeout: 2_000 })).string()).toBe('dispatcher');
    expect(await query(as('dispatcher'), 'trace', 'ping', {})).toEqual({ pong: 'trace' });
    expect(await query(as('dispatcher'), 'checkpoint', 'ping', {})).toEqual({ pong: 'checkpoint' });
    for (const s of subs) s.unsubscribe();
  });

  it("lets only the dispatcher write the admission projection's dead letters", async () => {
    const subject = busNames(namespace).deadLetterSubject('admission');
    const ack = await as('dispatcher').js.publish(subject, '{}', { msgID: 'admission-dlq-dispatcher', timeout: 2_000 });
    expect(ack.duplicate).toBe(false);
    await expect(as('gateway').js.publish(subject, '{}', { msgID: 'admission-dlq-gateway', timeout: 2_000 })).rejects.toThrow(
      /permission/i,
    );
  });

  it("lets only the gateway erase a run's log (DELETE /v1/runs/{id}), and nobody purge the whole log", async () => {
    await new RunLogWriter(as('runner'), 'run-erase', EMPTY_LOG, { maxEventBytes: 1_024 }).write({
      type: 'custom',
      spanId: 'root',
      path: 'root',
      data: { big: 'x'.repeat(5_000) },
    });
    for (const service of ['runner', 'approval', 'trace-recorder', 'dispatcher'] as const) {
      await expect(purgeRunLog(as(service), 'run-erase')).rejects.toThrow(/permission/i);
    }
    expect(await purgeRunLog(as('gateway'), 'run-erase')).toEqual({ messages: 1, payloads: 1 });
    expect((await readRunLog(as('checkpoint'), 'run-erase')).events).toEqual([]);
    expect((await readRunLog(as('checkpoint'), 'run-perm')).events).toHaveLength(4);
  });

  it('keeps large payloads in the object store for every service', async () => {
    const writer = new RunLogWriter(as('runner'), 'run-big', EMPTY_LOG, { maxEventBytes: 1_024 });
    await writer.write({ type: 'custom', spanId: 'root', path: 'root', data: { big: 'x'.repeat(10_000) } });
    for (const service of ['gateway', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher'] as const) {
      expect((await readRunLog(as(service), 'run-big')).events[0].data).toEqual({ big: 'x'.repeat(10_000) });
    }
    expect(await openPayloadStore(as('checkpoint'))).toBeDefined();
  });

  it('lets the gateway store file bytes, the runner and the dispatcher read them, the dispatcher’s collector deletes them', async () => {
    const bytes = new TextEncoder().encode('file bytes the permissions guard');
    const { sha256 } = await putFileBytes(as('gateway'), bytes);
    for (const service of ['runner', 'dispatcher'] as const) expect(await readFileBytes(as(service), sha256)).toEqual(bytes);
    await expect(putFileBytes(as('runner'), new TextEncoder().encode('a runner writes no files'))).rejects.toThrow(/permission|timeout/i);
    for (const service of ['trace-recorder', 'checkpoint', 'approval'] as const) {
      await expect(readFileBytes(as(service), sha256)).rejects.toThrow(/permission|timeout/i);
    }
    await deleteFileBytes(as('dispatcher'), sha256);
    expect(await readFileBytes(as('runner'), sha256)).toBeUndefined();
  });

  it('lets a runner announce and withdraw its capabilities, the gateway read them, and no other service write them', async () => {
    const opts = { maxAgeMs: 60_000 };
    const capabilities = {
      runnerId: 'runner-perm',
      startedAt: new Date().toISOString(),
      announcedAt: new Date().toISOString(),
      runTimeoutCeilingMs: 60_000,
      plugins: [],
      functions: [{ name: 'noop', pure: true, plugin: 'built-in' }],
      tools: [],
    };
    await announceCapabilities(as('runner'), capabilities, opts);
    expect(await readRunnerCapabilities(as('gateway'), () => undefined)).toEqual([capabilities]);
    for (const service of ['gateway', 'trace-recorder', 'checkpoint', 'approval', 'dispatcher'] as const) {
      await expect(announceCapabilities(as(service), { ...capabilities, runnerId: service }, opts)).rejects.toThrow(/permission|timeout/i);
    }
    await withdrawCapabilities(as('runner'), 'runner-perm', opts);
    expect(await readRunnerCapabilities(as('gateway'), () => undefined)).toEqual([]);
  });
});
