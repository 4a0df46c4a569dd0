import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY_LOG, lastEventOf, provisionStreams, publishTokenDelta, RunLogWriter, type Bus, type RunLogTail } from '@spindle/bus';
import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { eventually, readSse, removeStreams, testBus, testNamespace } from '@spindle/testing';
import fc from 'fast-check';
import pino from 'pino';
import { LiveRuns } from './live-runs';
import { RunEventStream } from './run-event-stream';
import { RunFeedHub } from './run-feed.hub';

const logger = pino({ level: 'silent' });
const queued: RunEventDraft = {
  type: 'run.queued',
  spanId: 'root',
  path: 'root',
  data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {} },
};
const started: RunEventDraft = { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'w-1' } };
const step = (i: number): RunEventDraft => ({ type: 'custom', spanId: 'root', path: 'root', data: { i } }) as RunEventDraft;
const completed: RunEventDraft = {
  type: 'run.completed',
  spanId: 'root',
  path: 'root',
  data: { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
};

/** The seqs of the events a client received, in order. */
const seqsOf = (frames: Array<{ id?: string; event: string }>) => frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));

/** The seqs a follower saw, each with the length of the log it was handed (the log up to and including it). */
async function follow(items: AsyncIterable<{ event: RunEvent; log: readonly RunEvent[] }>, seen: Array<[number, number]> = []) {
  for await (const { event, log } of items) seen.push([event.seq, log.length]);
  return seen;
}

describe('following a run on its shared feed: the run events stream and the protocols (real NATS)', () => {
  const namespace = testNamespace();
  let bus: Bus;
  let hub: RunFeedHub;
  let live: LiveRuns;
  let server: Server;
  let base: string;
  /** The tail each request's stream is handed, as the controller's run check would have read it. */
  const tails = new Map<string, RunLogTail>();

  /** The followers on the run's feed now (0: it has none). */
  const readersOf = async (runId: string) => hub.listenersOf(runId);
  /** The consumers reading the run events stream: the gateway's tail, whatever the number of runs and followers. */
  const consumersOnStream = async () => {
    const subjects: string[] = [];
    for await (const c of (await bus.js.jetstreamManager()).consumers.list(bus.names.eventsStream)) {
      subjects.push(...[c.config.filter_subject, ...(c.config.filter_subjects ?? [])].filter((f): f is string => Boolean(f)));
    }
    return subjects;
  };

  beforeAll(async () => {
    bus = await testBus(namespace, 'event-stream-test');
    await provisionStreams(bus);
    hub = new RunFeedHub(bus, logger);
    live = new LiveRuns(bus, hub);
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const runId = url.searchParams.get('run')!;
      const stream = new RunEventStream(
        bus,
        hub,
        res,
        {
          runId,
          afterSeq: Number(url.searchParams.get('after') ?? 0),
          heartbeatMs: 60_000,
          tail: tails.get(url.searchParams.get('tail') ?? ''),
        },
        logger,
      );
      stream.writeHead();
      void stream.pipe();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    hub.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await bus.close();
    await removeStreams(namespace);
  });

  it('gives a client joining a feed already past its run check every event between the two', async () => {
    const runId = '01JQ0000000000000000SSEJ01';
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write(queued);
    await log.write(started);
    // The late client's run check reads the tail (seq 2) ...
    tails.set('late', (await lastEventOf(bus, runId))!);
    // ... meanwhile an earlier client opened the run's feed, and it delivered 3 and 4.
    const seenByEarly: number[] = [];
    const early = readSse(`${base}/?run=${runId}`, {}, (f) => void (f.id && seenByEarly.push(Number(f.id))));
    await eventually(async () => expect(seenByEarly).toEqual([1, 2]));
    await log.write(step(3));
    await log.write(step(4));
    await eventually(async () => expect(seenByEarly).toEqual([1, 2, 3, 4]));
    // Now the late client's stream joins that feed with its stale tail.
    const seenByLate: number[] = [];
    const late = readSse(`${base}/?run=${runId}&tail=late`, {}, (f) => void (f.id && seenByLate.push(Number(f.id))));
    await eventually(async () => expect(seenByLate.length).toBeGreaterThanOrEqual(2));
    await log.write(completed);
    expect(seqsOf((await early).frames)).toEqual([1, 2, 3, 4, 5]);
    expect(seqsOf((await late).frames)).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives every follower of running runs, resuming anywhere at any moment, its log gapless from its resume point', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 8 }),
        fc.array(fc.record({ joinAt: fc.nat(8), after: fc.nat(8), checkAt: fc.nat(8) }), { minLength: 2, maxLength: 6 }),
        async (steps, followers) => {
          const runId = `01JQ0000000000000000SSEP${String(++run).padStart(2, '0')}`;
          const log = new RunLogWriter(bus, runId, EMPTY_LOG);
          await log.write(queued);
          await log.write(started);
          const total = steps + 3;
          const clients: Array<Promise<number[]>> = [];
          // Each follower's run check reads the tail at `checkAt`, its stream joins at `joinAt` (never earlier).
          for (let written = 0; written <= steps; written++) {
            for (const [i, f] of followers.entries()) {
              if (Math.min(f.checkAt, steps) === written) tails.set(`${runId}-${i}`, (await lastEventOf(bus, runId))!);
              if (Math.max(f.joinAt, f.checkAt) % (steps + 1) === written || (Math.max(f.joinAt, f.checkAt) > steps && written === steps)) {
                const after = Math.min(f.after, 2 + written);
                clients.push(
                  readSse(`${base}/?run=${runId}&after=${after}&tail=${runId}-${i}`).then(({ frames }) => {
                    const seqs = seqsOf(frames);
                    // Gapless from the resume point, no repeats, the terminal event last and once.
                    expect(seqs).toEqual(Array.from({ length: total - after }, (_, k) => after + k + 1));
                    expect(frames.filter((fr) => fr.event === 'run.completed')).toHaveLength(1);
                    expect(frames.at(-1)?.event).toBe('run.completed');
                    return seqs;
                  }),
                );
                // Let the stream reach the feed before the log moves on (a joined feed then delivers).
                await new Promise((resolve) => setTimeout(resolve, 20));
              }
            }
            if (written < steps) await log.write(step(written + 3));
          }
          await log.write(completed);
          await Promise.all(clients);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('gives each follower the log from its start, history then live, on the one tail however many follow', async () => {
    const runId = '01JQ0000000000000000LIVE01';
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write(queued);
    await log.write(step(2));
    const seen: Array<Array<[number, number]>> = [[], [], []];
    const followers = seen.map((s) => follow(live.withLog(runId), s));
    await eventually(async () => expect(seen.map((s) => s.length)).toEqual([2, 2, 2]));
    await eventually(async () => expect(await readersOf(runId)).toBe(3));
    // One consumer, on every run's events: none of the run's own.
    expect(await consumersOnStream()).toEqual([bus.names.eventsWildcard]);
    await log.write(step(3));
    await log.write(completed);
    const expected = [1, 2, 3, 4].map((seq) => [seq, seq]);
    expect(await Promise.all(followers)).toEqual([expected, expected, expected]);
    await eventually(async () => expect(await readersOf(runId)).toBe(0));
  });

  it('waits for a run that is not in the log yet (a thread run still pending), and follows it from its first event', async () => {
    const runId = '01JQ0000000000000000LIVE02';
    const seen: Array<[number, number]> = [];
    const following = follow(live.withLog(runId), seen);
    await eventually(async () => expect(await readersOf(runId)).toBe(1));
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write(queued);
    await log.write(completed);
    expect(await following).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it("hands a new run's follower, joined before the run is dispatched, the tokens said before it is first read", async () => {
    const runId = '01JQ0000000000000000LIVE04';
    const follower = live.withTokensOfNewRun(runId);
    await follower.attach();
    // The run starts and its model speaks before anyone iterates the follower (a fast model, a slow client).
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write(queued);
    const token = { runId, nodeId: 'n', spanId: 's', afterSeq: 1, index: 0, delta: 'It is ' };
    publishTokenDelta(bus, token);
    await bus.nc.flush();
    await eventually(async () => expect(await readersOf(runId)).toBe(1));
    await log.write(completed);
    const items: string[] = [];
    for await (const item of follower.items) items.push('token' in item ? `token ${item.token.delta}` : `event ${item.event.seq}`);
    expect(items).toEqual(['token It is ', 'event 1', 'event 2']);
  });

  it('lets go of the feed when the new run is not started after all', async () => {
    const runId = '01JQ0000000000000000LIVE05';
    const follower = live.withTokensOfNewRun(runId);
    await follower.attach();
    await eventually(async () => expect(await readersOf(runId)).toBe(1));
    follower.release();
    await eventually(async () => expect(await readersOf(runId)).toBe(0));
  });

  it('stops when the client leaves, and lets go of the feed', async () => {
    const runId = '01JQ0000000000000000LIVE03';
    await new RunLogWriter(bus, runId, EMPTY_LOG).write(queued);
    const gone = new AbortController();
    const seen: Array<[number, number]> = [];
    const following = follow(live.withLog(runId, gone.signal), seen);
    await eventually(async () => expect(seen).toEqual([[1, 1]]));
    gone.abort();
    expect(await following).toEqual([[1, 1]]);
    await eventually(async () => expect(await readersOf(runId)).toBe(0));
  });
});
