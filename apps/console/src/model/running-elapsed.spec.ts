import { describe, expect, it } from 'vitest';
import { runningElapsed } from './running-elapsed';

describe('runningElapsed', () => {
  it('labels only running nodes, and the label grows with the clock', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const events = [
      { type: 'node.started', at: new Date(t0).toISOString(), nodeId: 'a' },
      { type: 'node.started', at: new Date(t0 + 1000).toISOString(), nodeId: 'b' },
      { type: 'node.completed', at: new Date(t0 + 2000).toISOString(), nodeId: 'b' },
    ];
    const nodes = new Map([
      ['a', { state: 'running' as const, executions: 2 }],
      ['b', { state: 'completed' as const, executions: 1 }],
    ]);
    expect([...runningElapsed(events, nodes, t0 + 42_000)]).toEqual([['a', 'started 42 s ago · attempt 2']]);
    expect(runningElapsed(events, nodes, t0 + 43_000).get('a')).toBe('started 43 s ago · attempt 2');
  });
});
