import {
  EMPTY_RUN_CLOCK,
  foldRunClock,
  requestWaitsByParent,
  humanDuration,
  nodeDurations,
  runClockDurations,
  runDurations,
  spanDurations,
  type TimedEvent,
} from './durations';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const ev = (type: string, ms: number, extra: Partial<TimedEvent> = {}): TimedEvent => ({ type, at: at(ms), ...extra });

/** A run that waited 20 min for a person. */
const waitedRun = [
  ev('run.queued', 0),
  ev('run.started', 50),
  ev('run.awaiting', 1_000),
  ev('run.resumed', 1_210_000),
  ev('run.completed', 1_210_500),
];

describe('runDurations', () => {
  it('counts wall time from run.queued to the terminal event and subtracts the wait for a person', () => {
    expect(runDurations(waitedRun, t0 + 9_999_999)).toEqual({ wallMs: 1_210_500, workingMs: 1_500, running: false });
  });

  it('counts a running run to now, and an open wait up to now', () => {
    const events = [ev('run.queued', 0), ev('run.started', 10), ev('run.awaiting', 400)];
    expect(runDurations(events, t0 + 5_000)).toEqual({ wallMs: 5_000, workingMs: 400, running: true });
  });

  it('treats a hand-back to the queue as waiting', () => {
    const events = [ev('run.queued', 0), ev('run.yielded', 100), ev('run.resumed', 900), ev('run.failed', 1_000)];
    expect(runDurations(events, t0)).toEqual({ wallMs: 1_000, workingMs: 200, running: false });
  });

  it('gives zero for a run with no events', () => {
    expect(runDurations([], t0)).toEqual({ wallMs: 0, workingMs: 0, running: false });
  });
});

describe('nodeDurations', () => {
  it('takes only the node’s own events and subtracts its input wait', () => {
    const events = [
      ev('run.queued', 0),
      ev('node.started', 100, { nodeId: 'a' }),
      ev('node.started', 150, { nodeId: 'b' }),
      ev('input.requested', 200, { nodeId: 'a', data: { requestId: 'r1' } }),
      ev('node.completed', 300, { nodeId: 'b' }),
      ev('input.answered', 10_200, { nodeId: 'a', data: { requestId: 'r1' } }),
      ev('node.completed', 10_300, { nodeId: 'a' }),
    ];
    expect(nodeDurations(events, 'a', t0)).toEqual({ wallMs: 10_200, workingMs: 200, running: false });
    expect(nodeDurations(events, 'b', t0)).toEqual({ wallMs: 150, workingMs: 150, running: false });
  });

  it('subtracts a tool approval’s wait as it does a question’s, still open or answered', () => {
    const events = [
      ev('node.started', 0, { nodeId: 'agent' }),
      ev('approval.requested', 100, { nodeId: 'agent', data: { requestId: 'a1' } }),
      ev('approval.resolved', 60_100, { nodeId: 'agent', data: { requestId: 'a1' } }),
      ev('approval.requested', 60_300, { nodeId: 'agent', data: { requestId: 'a2' } }),
    ];
    expect(nodeDurations(events, 'agent', t0 + 70_300)).toEqual({ wallMs: 70_300, workingMs: 300, running: true });
    const answered = [...events, ev('approval.resolved', 90_300, { nodeId: 'agent', data: { requestId: 'a2' } })];
    expect(nodeDurations([...answered, ev('node.completed', 90_400, { nodeId: 'agent' })], 'agent', t0)).toEqual({
      wallMs: 90_400,
      workingMs: 400,
      running: false,
    });
  });

  it('ticks a running node to now and counts its latest attempt', () => {
    const events = [
      ev('node.started', 0, { nodeId: 'a' }),
      ev('node.failed', 100, { nodeId: 'a' }),
      ev('node.started', 1_000, { nodeId: 'a' }),
    ];
    expect(nodeDurations(events, 'a', t0 + 4_000)).toEqual({ wallMs: 3_000, workingMs: 3_000, running: true });
  });
});

describe('humanDuration', () => {
  it.each([
    [0, '0 ms'],
    [259, '259 ms'],
    [4_050, '4.0 s'],
    [42_000, '42 s'],
    [1_210_230, '20 min 10 s'],
    [3_600_000, '1 h'],
    [3_900_000, '1 h 5 min'],
    [100_800_000, '1 d 4 h'],
    [-1, '—'],
  ])('%d ms reads %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('foldRunClock', () => {
  it('gives what runDurations gives when the events are folded in two batches', () => {
    for (let cut = 0; cut <= waitedRun.length; cut++) {
      const stored = waitedRun.slice(0, cut).reduce(foldRunClock, EMPTY_RUN_CLOCK);
      const clock = waitedRun.slice(cut).reduce(foldRunClock, stored);
      expect(runClockDurations(clock, t0)).toEqual(runDurations(waitedRun, t0));
    }
  });

  it('keeps an open wait across a batch and counts it to now', () => {
    const clock = [ev('run.queued', 0), ev('run.awaiting', 300)].reduce(foldRunClock, EMPTY_RUN_CLOCK);
    expect(clock).toEqual({ startMs: t0, endMs: null, waitedMs: 0, waitingSinceMs: t0 + 300 });
    expect(runClockDurations(clock, t0 + 10_000)).toEqual({ wallMs: 10_000, workingMs: 300, running: true });
  });

  it('ignores what comes after the end', () => {
    const ended = [ev('run.queued', 0), ev('run.canceled', 100)].reduce(foldRunClock, EMPTY_RUN_CLOCK);
    expect(foldRunClock(ended, ev('run.awaiting', 200))).toBe(ended);
  });
});

describe('requestWaitsByParent', () => {
  it('gives each span its requests’ windows, an open one up to now', () => {
    const spans = [
      { kind: 'request', parentSpanId: 'n1', startedAt: at(100), endedAt: at(300) },
      { kind: 'request', parentSpanId: 'n1', startedAt: at(400), endedAt: null },
      { kind: 'node', parentSpanId: 'root', startedAt: at(0), endedAt: at(500) },
    ];
    expect(requestWaitsByParent(spans, t0 + 1_000)).toEqual(
      new Map([
        [
          'n1',
          [
            [t0 + 100, t0 + 300],
            [t0 + 400, t0 + 1_000],
          ],
        ],
      ]),
    );
  });
});

describe('spanDurations', () => {
  it('counts a span to now while it runs, less its requests’ waits', () => {
    expect(spanDurations(t0, undefined, [[t0 + 100, t0 + 900]], t0 + 1_000)).toEqual({ wallMs: 1_000, workingMs: 200, running: true });
    expect(spanDurations(t0, t0 + 50, [], t0 + 1_000)).toEqual({ wallMs: 50, workingMs: 50, running: false });
  });
});
