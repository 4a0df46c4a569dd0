import type { RunnerCapabilities } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { capabilityBucketOf, capabilityKeyOf } from './capability-bucket';
import { deleteStreams } from './provision-streams';
import { announceCapabilities, readRunnerCapabilities, withdrawCapabilities } from './runner-capabilities';

const announcement = (runnerId: string): RunnerCapabilities => ({
  runnerId,
  startedAt: '2026-01-01T00:00:00.000Z',
  announcedAt: new Date().toISOString(),
  runTimeoutCeilingMs: 60_000,
  plugins: [{ name: 'calc', version: '1.2.3', path: 'examples/plugins/calculator.js' }],
  functions: [{ name: 'noop', pure: true, plugin: 'built-in' }],
  tools: [{ name: 'add', inputSchema: { type: 'object' }, plugin: 'examples/plugins/calculator.js' }],
});

/** A bus in a namespace of its own (the bucket's max age is set when the bucket is made), its streams deleted after. */
function ownBus(name: string): () => Bus {
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name });
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });
  return () => bus;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 15 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Issue 29: runners announce what they can run; a stopped runner's entry goes at once, a dead one's expires. */
describe("the runners' capabilities bucket", () => {
  const busOf = ownBus('capabilities-test');
  const skipped: string[] = [];
  const read = () => readRunnerCapabilities(busOf(), (key, reason) => skipped.push(`${key}: ${reason}`));
  const ids = (list: RunnerCapabilities[]) => list.map((r) => r.runnerId).sort();

  it('reads no runners before any runner has made the bucket', async () => {
    expect(await read()).toEqual([]);
  });

  it('reads what each runner announced, the latest announcement of each, and not a withdrawn one', async () => {
    const opts = { maxAgeMs: 60_000 };
    await announceCapabilities(busOf(), announcement('host.example-1'), opts);
    await announceCapabilities(busOf(), announcement('host-2'), opts);
    await announceCapabilities(busOf(), { ...announcement('host-2'), runTimeoutCeilingMs: 120_000 }, opts);
    const both = await read();
    expect(ids(both)).toEqual(['host-2', 'host.example-1']);
    expect(both.find((r) => r.runnerId === 'host-2')?.runTimeoutCeilingMs).toBe(120_000);
    expect(both.find((r) => r.runnerId === 'host.example-1')?.plugins).toEqual(announcement('x').plugins);
    await withdrawCapabilities(busOf(), 'host.example-1', opts);
    expect(ids(await read())).toEqual(['host-2']);
    await withdrawCapabilities(busOf(), 'host-2', opts);
  });

  it('skips an entry that is not JSON or not an announcement, and reads the others', async () => {
    const opts = { maxAgeMs: 60_000 };
    await announceCapabilities(busOf(), announcement('good'), opts);
    const bucket = capabilityBucketOf(busOf().names);
    await busOf().js.publish(`$KV.${bucket}.${capabilityKeyOf('garbage')}`, 'not json');
    await busOf().js.publish(`$KV.${bucket}.${capabilityKeyOf('wrong')}`, JSON.stringify({ runnerId: 'wrong', functions: 'all' }));
    expect(ids(await read())).toEqual(['good']);
    expect(skipped).toEqual([
      expect.stringMatching(/^garbage: invalid JSON/),
      expect.stringMatching(/^wrong: not a runner's capabilities/),
    ]);
    await withdrawCapabilities(busOf(), 'good', opts);
  });
});

describe('an announcement nobody renews', () => {
  const busOf = ownBus('capabilities-expiry-test');

  it("expires with the bucket's max age (a runner that died without withdrawing)", async () => {
    await announceCapabilities(busOf(), announcement('dies'), { maxAgeMs: 1_000 });
    const read = () => readRunnerCapabilities(busOf(), () => undefined);
    expect((await read()).map((r) => r.runnerId)).toEqual(['dies']);
    expect(await until(read, (list) => list.length === 0, 'the expiry of the announcement')).toEqual([]);
  });
});
