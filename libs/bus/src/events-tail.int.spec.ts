import type { JsMsg } from '@nats-io/jetstream';
import { eventually, testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { EventsTail, type TailRoute } from './events-tail';
import { deleteStreams, provisionStreams } from './provision-streams';

/** A route that keeps the stream sequences it was handed, and the error that broke it. */
function recorder(): TailRoute & { seqs: number[]; broken?: unknown } {
  const route = {
    seqs: [] as number[],
    broken: undefined as unknown,
    onMessage: async (msg: JsMsg) => void route.seqs.push(msg.seq),
    onBroken: (error: unknown) => void (route.broken = error),
  };
  return route;
}

describe('EventsTail (real NATS)', () => {
  let bus: Bus;
  let tail: EventsTail;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-tail-test' });
    await provisionStreams(bus);
    tail = new EventsTail(bus);
  });
  afterAll(async () => {
    tail.close();
    await deleteStreams(bus);
    await bus.close();
  });

  const publish = async (runId: string) => (await bus.js.publish(bus.names.eventSubject(runId), '{}')).seq;
  const consumers = async () => {
    const found: string[] = [];
    for await (const c of (await bus.js.jetstreamManager()).consumers.list(bus.names.eventsStream)) found.push(c.name);
    return found;
  };

  it('hands each run its own messages from where it joined, on one consumer for every run', async () => {
    const a = recorder();
    const b = recorder();
    const first = await publish('tail-a');
    const joinedA = await tail.join('tail-a', first, a);
    expect(joinedA.deliveredThrough).toBe(first - 1);
    const joinedB = await tail.join('tail-b', first, b);
    expect(joinedB.deliveredThrough).toBe(first - 1);
    const seqs = [await publish('tail-b'), await publish('tail-a'), await publish('tail-nobody'), await publish('tail-b')];
    await eventually(async () =>
      expect([a.seqs, b.seqs]).toEqual([
        [first, seqs[1]],
        [seqs[0], seqs[3]],
      ]),
    );
    expect(await consumers()).toHaveLength(1);
    joinedA.leave();
    joinedB.leave();
  });

  it("says how far a run's messages went by before it joined, so its follower reads history that far and no further", async () => {
    const warm = recorder();
    const start = await publish('tail-warm');
    const keep = await tail.join('tail-warm', start, warm);
    // The tail passes two messages of run c before anyone follows it, then one of another run.
    const c1 = await publish('tail-c');
    const c2 = await publish('tail-c');
    const other = await publish('tail-warm');
    await eventually(async () => expect(warm.seqs).toContain(other));
    // A follower whose history read ended at c1 joins: c2 went by, so its history must reach c2.
    const late = recorder();
    const joinedLate = await tail.join('tail-c', c1 + 1, late);
    expect(joinedLate.deliveredThrough).toBe(c2);
    // One that read up to c2 joins exactly there; a run the tail never saw, at its own start.
    joinedLate.leave();
    const upToDate = await tail.join('tail-c', c2 + 1, recorder());
    expect(upToDate.deliveredThrough).toBe(c2);
    upToDate.leave();
    const fresh = await tail.join('tail-d', other + 1, recorder());
    expect(fresh.deliveredThrough).toBe(other);
    const d1 = await publish('tail-d');
    fresh.leave();
    expect(d1).toBeGreaterThan(fresh.deliveredThrough);
    keep.leave();
  });

  it('tells every route when the stream goes, and opens again on the next join', async () => {
    const nextSeq = async () => (await (await bus.js.jetstreamManager()).streams.info(bus.names.eventsStream)).state.last_seq + 1;
    const route = recorder();
    const joined = await tail.join('tail-e', await nextSeq(), route);
    await publish('tail-e');
    await eventually(async () => expect(route.seqs).toHaveLength(1));
    await deleteStreams(bus);
    await eventually(async () => expect(route.broken).toBeDefined());
    joined.leave();
    await provisionStreams(bus);
    const again = recorder();
    const rejoined = await tail.join('tail-e', await nextSeq(), again);
    await publish('tail-e');
    await eventually(async () => expect(again.seqs).toEqual([1]));
    rejoined.leave();
  });
});
