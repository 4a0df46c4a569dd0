import { createLogger } from '@spindle/telemetry';
import { PeriodicLoop } from './periodic-loop';

const logger = createLogger('test', { level: 'silent' });

describe('PeriodicLoop', () => {
  it('runs one pass at a time: ticks during a pass ask for one more pass after it', async () => {
    let passes = 0;
    let running = 0;
    let overlapped = false;
    const releases: Array<() => void> = [];
    const loop = new PeriodicLoop({
      name: 'test',
      everyMs: 60_000,
      logger,
      pass: () => {
        passes++;
        overlapped ||= ++running > 1;
        return new Promise<void>((resolve) => releases.push(resolve)).finally(() => running--);
      },
    });
    const first = loop.tick();
    const second = loop.tick();
    const third = loop.tick();
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.();
    await Promise.all([first, second, third]);
    expect({ passes, overlapped }).toEqual({ passes: 2, overlapped: false });
  });

  it('survives a failing pass and passes again on the next tick', async () => {
    const outcomes = [new Error('down'), undefined];
    const seen: string[] = [];
    const loop = new PeriodicLoop({
      name: 'test',
      everyMs: 60_000,
      logger,
      pass: async () => {
        const next = outcomes.shift();
        seen.push(next ? 'failed' : 'passed');
        if (next) throw next;
      },
    });
    await expect(loop.tick()).resolves.toBeUndefined();
    await loop.tick();
    expect(seen).toEqual(['failed', 'passed']);
  });

  it('passes at start when asked, and waits for the pass under way when the module is destroyed', async () => {
    let finished = false;
    let release!: () => void;
    const loop = new PeriodicLoop({
      name: 'test',
      everyMs: 60_000,
      logger,
      passAtStart: true,
      pass: () => new Promise<void>((resolve) => (release = resolve)).then(() => void (finished = true)),
    });
    loop.onApplicationBootstrap();
    const destroyed = loop.onModuleDestroy();
    release();
    await destroyed;
    expect(finished).toBe(true);
  });
});
