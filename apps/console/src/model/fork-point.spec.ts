import type { RunEvent } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { checkForkEdit, forkPointAt } from './fork-point';

let seq = 0;
const ev = (type: string, data: Record<string, unknown>) =>
  ({ runId: 'r', seq: ++seq, at: new Date(seq).toISOString(), spanId: 'root', path: 'root', type, data }) as unknown as RunEvent;

function run(): RunEvent[] {
  seq = 0;
  return [
    ev('run.queued', { workflow: { name: 'w', version: 1 }, input: 'x', state: { count: 0, name: 'ada' }, definition: {} }),
    ev('run.started', { attempt: 1, worker: 'w' }),
    ev('checkpoint.saved', { checkpointId: 'cp1', step: 1, changes: { count: 1 }, frontier: ['b'], graphHash: 'g' }),
    ev('node.started', { nodeType: 'set', input: {} }),
    ev('checkpoint.saved', { checkpointId: 'cp2', step: 2, changes: { count: 2, note: 'hi' }, frontier: ['c'], graphHash: 'g' }),
  ];
}

describe('the fork point at a replay cursor', () => {
  it('is the last checkpoint at or before the cursor, with the state the log builds up to it', () => {
    expect(forkPointAt(run(), 4)).toEqual({ checkpointId: 'cp1', seq: 3, step: 1, frontier: ['b'], state: { count: 1, name: 'ada' } });
    expect(forkPointAt(run(), 5)?.state).toEqual({ count: 2, name: 'ada', note: 'hi' });
    expect(forkPointAt(run(), 2)).toBeUndefined();
  });
});

describe('a state edited for a fork', () => {
  const original = { count: 2, name: 'ada', tags: ['x'], note: null };
  it('answers only the top-level keys that changed, new keys included', () => {
    expect(checkForkEdit(original, JSON.stringify({ ...original, count: 5, extra: true }))).toEqual({
      ok: true,
      changes: { count: 5, extra: true },
    });
    expect(checkForkEdit(original, JSON.stringify(original))).toEqual({ ok: true, changes: {} });
    expect(checkForkEdit(original, JSON.stringify({ ...original, note: { now: 'an object' } }))).toMatchObject({ ok: true });
  });

  it('refuses text that is not a JSON object, a removed key, and a value of another kind, saying which', () => {
    expect(checkForkEdit(original, '{"count": ')).toMatchObject({ ok: false, problem: expect.stringMatching(/^not JSON/) });
    expect(checkForkEdit(original, '[1]')).toEqual({ ok: false, problem: 'the state must be a JSON object' });
    expect(checkForkEdit(original, JSON.stringify({ count: 2, tags: [], note: null }))).toEqual({
      ok: false,
      problem: 'a fork cannot remove state keys: put back name (set null instead)',
    });
    expect(checkForkEdit(original, JSON.stringify({ ...original, count: '3' }))).toEqual({
      ok: false,
      problem: 'count was a number; it cannot become a string',
    });
    expect(checkForkEdit(original, JSON.stringify({ ...original, tags: {} }))).toEqual({
      ok: false,
      problem: 'tags was an array; it cannot become an object',
    });
  });

  it('takes __proto__ as a plain state key', () => {
    expect(checkForkEdit({}, '{"__proto__": {"polluted": true}}')).toEqual({ ok: true, changes: { ['__proto__']: { polluted: true } } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
