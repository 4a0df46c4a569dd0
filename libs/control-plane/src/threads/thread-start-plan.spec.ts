import type { MultitaskStrategy } from '@spindle/contracts';
import { nextThreadRun, planThreadStart, type ThreadRunSlot } from './thread-start-plan';

const slot = (runId: string, status: string, position: number, strategy = 'enqueue'): ThreadRunSlot => ({
  runId,
  status,
  position,
  strategy,
});

describe('planThreadStart', () => {
  const idle = [slot('done', 'completed', 1), slot('gone', 'rolled_back', 2)];
  const busy = [slot('done', 'completed', 1), slot('going', 'running', 2), slot('waiting', 'pending', 3)];

  it.each<[MultitaskStrategy, ThreadRunSlot[], ReturnType<typeof planThreadStart>]>([
    ['reject', [], { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['reject', idle, { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['reject', busy, { kind: 'reject', busyWith: busy[1] }],
    ['enqueue', idle, { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['enqueue', busy, { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['interrupt', idle, { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['interrupt', busy, { kind: 'accept', endNow: ['waiting'], cancel: ['going'], rollsBack: [] }],
    ['rollback', idle, { kind: 'accept', endNow: [], cancel: [], rollsBack: [] }],
    ['rollback', busy, { kind: 'accept', endNow: ['waiting'], cancel: ['going'], rollsBack: ['going', 'waiting'] }],
  ])('%s on %j', (strategy, runs, plan) => {
    expect(planThreadStart(strategy, runs)).toEqual(plan);
  });

  it.each(['pending', 'starting', 'queued', 'running', 'awaiting_input', 'awaiting_approval'])('counts a %s run as busy', (status) => {
    expect(planThreadStart('reject', [slot('r', status, 1)]).kind).toBe('reject');
  });

  it.each(['completed', 'failed', 'canceled', 'rolled_back'])('counts a %s run as ended', (status) => {
    expect(planThreadStart('reject', [slot('r', status, 1)]).kind).toBe('accept');
  });
});

describe('nextThreadRun', () => {
  it.each<[string, ThreadRunSlot[], { run: string; progressOf?: string } | undefined]>([
    ['nothing waits', [slot('a', 'completed', 1)], undefined],
    ['a run is going', [slot('a', 'running', 1), slot('b', 'pending', 2)], undefined],
    ['a start is under way', [slot('a', 'starting', 1), slot('b', 'pending', 2)], undefined],
    ['a run waits for an answer', [slot('a', 'awaiting_input', 1), slot('b', 'pending', 2)], undefined],
    ['the first pending after ended runs', [slot('a', 'failed', 1), slot('b', 'pending', 2), slot('c', 'pending', 3)], { run: 'b' }],
    ['an interrupt after a canceled run', [slot('a', 'canceled', 1), slot('b', 'pending', 2, 'interrupt')], { run: 'b', progressOf: 'a' }],
    ['an interrupt after a completed run', [slot('a', 'completed', 1), slot('b', 'pending', 2, 'interrupt')], { run: 'b' }],
    ['an interrupt first on its thread', [slot('b', 'pending', 1, 'interrupt')], { run: 'b' }],
    ['an enqueue after a canceled run', [slot('a', 'canceled', 1), slot('b', 'pending', 2, 'enqueue')], { run: 'b' }],
    [
      'an interrupt after the latest ended run only',
      [slot('a', 'canceled', 1), slot('b', 'completed', 2), slot('c', 'pending', 3, 'interrupt')],
      { run: 'c' },
    ],
  ])('%s', (_, runs, expected) => {
    const next = nextThreadRun(runs);
    expect(next && { run: next.run.runId, ...(next.progressOf ? { progressOf: next.progressOf } : {}) }).toEqual(expected);
  });
});
