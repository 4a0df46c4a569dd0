import { busNames } from './bus-names';
import { isSpindleError, SpindleError } from './errors';
import { isTerminalEvent, runEventSchema } from './run-events';

const envelope = { runId: 'r1', seq: 1, at: '2026-01-01T00:00:00.000Z', spanId: 's1', path: 'root' };

describe('run event schemas', () => {
  it('accepts a well-formed event and keeps its data typed by type', () => {
    const parsed = runEventSchema.parse({
      ...envelope,
      type: 'node.completed',
      nodeId: 'a',
      data: { nodeType: 'set', output: { x: 1 }, durationMs: 3 },
    });
    expect(parsed.type).toBe('node.completed');
    expect(parsed.data).toEqual({ nodeType: 'set', output: { x: 1 }, durationMs: 3 });
  });

  it.each([
    ['an unknown type', { ...envelope, type: 'run.exploded', data: {} }],
    ['seq 0', { ...envelope, seq: 0, type: 'run.started', data: { attempt: 1, worker: 'w' } }],
    ['no spanId', { ...envelope, spanId: undefined, type: 'run.started', data: { attempt: 1, worker: 'w' } }],
    ['data of another type', { ...envelope, type: 'run.started', data: { output: {} } }],
    ['an unknown error code', { ...envelope, type: 'run.failed', data: { error: { code: 'oops', message: '' }, durationMs: 1 } }],
  ])('refuses %s', (_, event) => {
    expect(runEventSchema.safeParse(event).success).toBe(false);
  });

  it('knows which events end a run', () => {
    expect(
      ['run.completed', 'run.failed', 'run.canceled', 'run.awaiting', 'node.completed'].map((type) => isTerminalEvent({ type })),
    ).toEqual([true, true, true, false, false]);
  });
});

describe('bus names', () => {
  it('uses the brief names without a namespace and prefixes everything with one', () => {
    const plain = busNames();
    expect([plain.eventsStream, plain.eventSubject('r1'), plain.commandsStream, plain.startCommand, plain.tokenSubject('r1')]).toEqual([
      'RUN_EVENTS',
      'run.ev.r1',
      'RUN_COMMANDS',
      'run.cmd.start',
      'run.tok.r1',
    ]);
    const t = busNames('t1');
    expect([t.eventsStream, t.eventsWildcard, t.startCommand, t.deadLetterSubject('runner'), t.querySubject('trace', 'getRun')]).toEqual([
      'T1_RUN_EVENTS',
      't1.run.ev.>',
      't1.run.cmd.start',
      't1.dlq.runner',
      't1.svc.trace.getRun',
    ]);
    expect(t.runIdFromEventSubject('t1.run.ev.abc')).toBe('abc');
    expect(t.runIdFromEventSubject('run.ev.abc')).toBeUndefined();
  });

  it('refuses a namespace that could break a subject', () => {
    expect(() => busNames('a.b')).toThrow(/namespace/);
    expect(() => busNames('A')).toThrow(/namespace/);
  });
});

describe('errors', () => {
  it('classifies by code and says whether a retry helps', () => {
    const e = new SpindleError('provider_error', 'HTTP 503');
    expect(isSpindleError(e)).toBe(true);
    expect(e.retryable).toBe(true);
    expect(new SpindleError('invalid_definition', 'x').retryable).toBe(false);
    expect(isSpindleError(new Error('x'))).toBe(false);
  });
});

describe('typed event data', () => {
  const envelope = { runId: 'r1', seq: 4, at: '2025-03-01T10:00:00.000Z', spanId: 's', path: 'root/fork' };

  it("reads branch and loop events of logs written before their fields were renamed, in today's spelling", () => {
    const started = runEventSchema.parse({ ...envelope, type: 'branch.started', data: { fork_id: 'panel', branch_id: 'left' } });
    expect(started.data).toEqual({ forkId: 'panel', branchId: 'left' });
    const completed = runEventSchema.parse({
      ...envelope,
      type: 'branch.completed',
      data: { fork_id: 'panel', branch_id: 'left', duration_ms: 12, status: 'completed' },
    });
    expect(completed.data).toEqual({ forkId: 'panel', branchId: 'left', durationMs: 12, status: 'completed' });
    expect(runEventSchema.parse({ ...envelope, type: 'loop.iteration', data: { iteration: 2, max_steps: 3 } }).data).toEqual({
      iteration: 2,
      maxSteps: 3,
    });
  });

  it('refuses branch, loop and truncation events whose data is not what the type says', () => {
    expect(
      runEventSchema.safeParse({
        ...envelope,
        type: 'branch.completed',
        data: { forkId: 'p', branchId: 'l', status: 'exploded', durationMs: 1 },
      }).success,
    ).toBe(false);
    expect(runEventSchema.safeParse({ ...envelope, type: 'loop.iteration', data: { iteration: 0, maxSteps: 3 } }).success).toBe(false);
    expect(runEventSchema.safeParse({ ...envelope, type: 'context.truncated', data: { anything: true } }).success).toBe(false);
  });
});
