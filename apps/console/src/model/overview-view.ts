import type { Overview } from '@spindle/contracts';

/** One day as the charts draw it: a short label, and durations in seconds. */
export interface ChartDay {
  label: string;
  day: string;
  completed: number;
  failed: number;
  canceled: number;
  active: number;
  tokens: number;
  cost: number;
  p50s: number | null;
  p95s: number | null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-12-01` → `Dec 1` (the days are UTC days: no zone moves them). */
export function dayLabel(day: string): string {
  const [, month, date] = day.split('-').map(Number);
  return `${MONTHS[(month ?? 1) - 1]} ${date}`;
}

export function chartDays(overview: Overview): ChartDay[] {
  const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000);
  return overview.daily.map((d) => ({
    label: dayLabel(d.day),
    day: d.day,
    completed: d.completed,
    failed: d.failed,
    canceled: d.canceled,
    active: d.active,
    tokens: d.totalTokens,
    cost: d.costUsd,
    p50s: seconds(d.p50DurationMs),
    p95s: seconds(d.p95DurationMs),
  }));
}

/** Completed runs among those that ended; undefined before any ended. */
export function successRate(totals: Overview['totals']): number | undefined {
  const ended = totals.completed + totals.failed + totals.canceled;
  return ended === 0 ? undefined : totals.completed / ended;
}

/** How many requests wait, all ages together. */
export const pendingTotal = (overview: Overview) => overview.pendingRequests.buckets.reduce((n, b) => n + b.requests, 0);
