import { EMPTY_LOG, provisionStreams, RunLogWriter, type Bus } from '@spindle/bus';
import { removeStreams, testBus, testNamespace } from '@spindle/testing';
import { RunOwnership } from './run-ownership';

describe('RunOwnership cache', () => {
  const namespace = testNamespace();
  let bus: Bus;

  beforeAll(async () => {
    bus = await testBus(namespace, 'ownership-test');
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await bus.close();
    await removeStreams(namespace);
  });

  it('keeps at most its bound of the runs the gateway started itself (the oldest is read from the log again)', async () => {
    const ownership = new RunOwnership(bus, 10);
    // The first run's log says tenant "acme"; the cache was told "other", so the answer shows which was used.
    const first = 'soak-run-0';
    await new RunLogWriter(bus, first, EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {}, tenant: 'acme' },
    });
    ownership.remember(first, 'other');
    expect(await ownership.tenantOf(first)).toBe('other');

    for (let i = 1; i <= 50; i++) ownership.remember(`soak-run-${i}`, 'other');

    expect(await ownership.tenantOf(first)).toBe('acme');
    expect(await ownership.tenantOf('soak-run-50')).toBe('other');
  });
});
