import { describe, expect, it } from 'vitest';
import { CHORD_MS, createShortcutReader } from './shortcuts';

describe('the shortcut reader', () => {
  it('acts on single keys at once', () => {
    const read = createShortcutReader();
    expect([read('/', 0), read('?', 1), read('Escape', 2), read('x', 3)]).toEqual(['search', 'help', 'close', undefined]);
  });

  it('reads g then a second key as one chord, within its time', () => {
    const read = createShortcutReader();
    expect(read('g', 0)).toBeUndefined();
    expect(read('r', 10)).toBe('go-runs');
    expect([read('g', 100), read('i', 100 + CHORD_MS)]).toEqual([undefined, 'go-inbox']);
    expect([read('g', 5000), read('d', 5001)]).toEqual([undefined, 'go-dashboard']);
  });

  it('forgets a g that waited too long, or was followed by another key', () => {
    const read = createShortcutReader();
    expect([read('g', 0), read('r', CHORD_MS + 1)]).toEqual([undefined, undefined]);
    expect([read('g', 0), read('x', 1), read('r', 2)]).toEqual([undefined, undefined, undefined]);
  });
});
