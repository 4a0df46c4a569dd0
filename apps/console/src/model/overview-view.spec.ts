import type { Overview } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { chartDays, dayLabel, pendingTotal, successRate } from './overview-view';

const day = { completed: 3, failed: 1, canceled: 0, active: 2, totalTokens: 120, costUsd: 0.01, p50DurationMs: 1234, p95DurationMs: null };
const overview = {
  workflow: null,
  days: 2,
  from: '2026-11-30T00:00:00.000Z',
  to: '2026-12-01T10:00:00.000Z',
  totals: { ...day, runs: 6 },
  daily: [{ day: '2026-11-30', ...day }],
  topErrors: [],
  slowestNodes: [],
  pendingRequests: {
    buckets: [
      { age: 'under 1 h', requests: 2 },
      { age: 'over 7 d', requests: 1 },
    ],
    oldestRequestedAt: null,
  },
} as unknown as Overview;

describe('the overview as charts draw it', () => {
  it('labels UTC days without moving them to the browser zone, and draws durations in seconds', () => {
    expect(dayLabel('2026-01-01')).toBe('Jan 1');
    expect(dayLabel('2026-12-31')).toBe('Dec 31');
    expect(chartDays(overview)).toEqual([
      {
        label: 'Nov 30',
        day: '2026-11-30',
        completed: 3,
        failed: 1,
        canceled: 0,
        active: 2,
        tokens: 120,
        cost: 0.01,
        p50s: 1.234,
        p95s: null,
      },
    ]);
  });

  it('rates success among the runs that ended, and counts every waiting request', () => {
    expect(successRate(overview.totals)).toBe(0.75);
    expect(successRate({ ...overview.totals, completed: 0, failed: 0, canceled: 0 })).toBeUndefined();
    expect(pendingTotal(overview)).toBe(3);
  });
});
