import { describe, expect, it } from 'vitest';
import { runningElapsed } from './running-elapsed';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

describe('runningElapsed', () => {
  it('labels only running nodes, and the label grows with the clock', () => {
    const events = [
      { type: 'node.started', at: at(0), nodeId: 'a' },
      { type: 'node.started', at: at(1000), nodeId: 'b' },
      { type: 'node.completed', at: at(2000), nodeId: 'b' },
    ];
    const nodes = new Map([
      ['a', { state: 'running' as const, executions: 2 }],
      ['b', { state: 'completed' as const, executions: 1 }],
    ]);
    expect([...runningElapsed(events, nodes, t0 + 42_000)]).toEqual([['a', 'started 42 s ago · attempt 2']]);
    expect(runningElapsed(events, nodes, t0 + 43_000).get('a')).toBe('started 43 s ago · attempt 2');
  });

  it('labels a node waiting for a person with how long its oldest open request has waited, ticking with the clock', () => {
    const events = [
      { type: 'node.started', at: at(0), nodeId: 'review' },
      { type: 'input.requested', at: at(1000), nodeId: 'review', data: { requestId: 'r1' } },
      { type: 'node.started', at: at(0), nodeId: 'refund' },
      // An approval answered, then a second one still open: the open one counts.
      { type: 'approval.requested', at: at(2000), nodeId: 'refund', data: { requestId: 'r2' } },
      { type: 'approval.resolved', at: at(3000), nodeId: 'refund', data: { requestId: 'r2' } },
      { type: 'approval.requested', at: at(5000), nodeId: 'refund', data: { requestId: 'r3' } },
    ];
    const nodes = new Map([
      ['review', { state: 'waiting' as const, executions: 1 }],
      ['refund', { state: 'waiting' as const, executions: 1 }],
    ]);
    expect(Object.fromEntries(runningElapsed(events, nodes, t0 + 43_000))).toEqual({
      review: 'waiting 42 s',
      refund: 'waiting 38 s',
    });
    expect(runningElapsed(events, nodes, t0 + 20 * 60_000 + 1000).get('review')).toBe('waiting 20 min');
  });

  it('gives no label to a node that is done waiting, or whose request the log does not show', () => {
    const events = [
      { type: 'input.requested', at: at(0), nodeId: 'review', data: { requestId: 'r1' } },
      { type: 'input.answered', at: at(4000), nodeId: 'review', data: { requestId: 'r1' } },
      { type: 'node.completed', at: at(5000), nodeId: 'review' },
    ];
    const nodes = new Map([
      ['review', { state: 'completed' as const, executions: 1 }],
      ['elsewhere', { state: 'waiting' as const, executions: 1 }],
    ]);
    expect(runningElapsed(events, nodes, t0 + 60_000).size).toBe(0);
  });
});
