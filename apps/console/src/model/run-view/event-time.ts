import type { RunEvent } from '@spindle/contracts';

/** Event times parsed once per event object: scrubbing re-derives the same events many times. */
const parsedAt = new WeakMap<RunEvent, number>();

export function atMs(e: RunEvent): number {
  let ms = parsedAt.get(e);
  if (ms === undefined) {
    ms = Date.parse(e.at);
    parsedAt.set(e, ms);
  }
  return ms;
}

export const containerOf = (path: string) => path.slice(0, path.lastIndexOf('/'));
