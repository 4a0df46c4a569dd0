import type { RunEvent } from '@spindle/contracts';

/** Cursor = how many of the recorded events are shown; `events.length` is the end. */
export function nextStep(events: readonly RunEvent[], cursor: number): number {
  for (let i = cursor; i < events.length; i++) if (events[i].type === 'node.completed') return i + 1;
  return events.length;
}

export function previousStep(events: readonly RunEvent[], cursor: number): number {
  for (let i = Math.min(cursor, events.length) - 2; i >= 0; i--) if (events[i].type === 'node.completed') return i + 1;
  return 0;
}

/** `?at=` from the URL: a whole number within the recorded events, else the end (live). */
export function parseCursor(value: string | null, length: number): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), length);
}
