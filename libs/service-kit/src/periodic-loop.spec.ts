import { createLogger } from '@spindle/telemetry';
import { PeriodicLoop } from './periodic-loop';

const logger = createLogger('test', { level: 'silent' });

describe('PeriodicLoop', () => {
  it('runs one pass at a time: a tick during a pass joins it', async () => {
    let passes = 0;
    let release!: () => void;
    const loop = new PeriodicLoop({
      name: 'test',
      everyMs: 60_000,
      logger,
      pass: () => {
        passes++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    const first = loop.tick();
    const second = loop.tick();
    release();
    await Promise.all([first, second]);
    expect(passes).toBe(1);
    const third = loop.tick();
    release();
    await third;
    expect(passes).toBe(2);
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
