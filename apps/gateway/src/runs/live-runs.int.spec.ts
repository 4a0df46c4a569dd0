import { EMPTY_LOG, provisionStreams, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { eventually, removeStreams, testBus, testNamespace } from '@spindle/testing';
import pino from 'pino';
import { LiveRuns } from './live-runs';
import { RunFeedHub } from './run-feed.hub';

const queued: RunEventDraft = {
  type: 'run.queued',
  spanId: 'root',
  path: 'root',
  data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {} },
};
const step = (i: number): RunEventDraft => ({ type: 'custom', spanId: 'root', path: 'root', data: { i } }) as RunEventDraft;
const completed: RunEventDraft = {
  type: 'run.completed',
  spanId: 'root',
  path: 'root',
  data: { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
};

/** The seqs a follower saw, each with the length of the log it was handed (the log up to and including it). */
async function follow(items: AsyncIterable<{ event: RunEvent; log: readonly RunEvent[] }>, seen: Array<[number, number]> = []) {
  for await (const { event, log } of items) seen.push([event.seq, log.length]);
  return seen;
}

describe('LiveRuns: the protocols follow runs through the shared feed (real NATS)', () => {
  const namespace = testNamespace();
  let bus: Bus;
  let hub: RunFeedHub;
  let live: LiveRuns;
  /** Consumers reading the run's subject now: the feed's one, whatever the number of followers. */
  const readersOf = async (runId: string) => {
    let n = 0;
    for await (const c of (await bus.js.jetstreamManager()).consumers.list(bus.names.eventsStream)) {
      if ([c.config.filter_subject, ...(c.config.filter_subjects ?? [])].includes(bus.names.eventSubject(runId))) n++;
    }
    return n;
  };

  beforeAll(async () => {
    bus = await testBus(namespace, 'live-runs-test');
    await provisionStreams(bus);
    hub = new RunFeedHub(bus, pino({ level: 'silent' }));
    live = new LiveRuns(bus, hub);
  });
  afterAll(async () => {
    hub.onApplicationShutdown();
    await bus.close();
    await removeStreams(namespace);
  });

  it('gives each follower the log from its start, history then live, on one consumer however many follow', async () => {
    const runId = '01JQ0000000000000000LIVE01';
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write(queued);
    await log.write(step(2));
    const seen: Array<Array<[number, number]>> = [[], [], []];
    const followers = seen.map((s) => follow(live.withLog(runId), s));
    await eventually(async () => expect(seen.map((s) => s.length)).toEqual([2, 2, 2]));
    await eventually(async () => expect(await readersOf(runId)).toBe(1));
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
