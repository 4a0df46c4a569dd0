import { summarizeCpuProfile, type CpuProfile } from './cpu-profile-summary';

const frame = (id: number, functionName: string, url = '', lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber } });

describe('summarizeCpuProfile', () => {
  const profile: CpuProfile = {
    nodes: [
      frame(1, '(root)'),
      frame(2, '(idle)'),
      frame(3, 'parse', 'file:///repo/node_modules/zod/v4/core/parse.js', 9),
      frame(4, 'fold', 'file:///repo/libs/projections/dist/project-events.js', 41),
      frame(5, 'parse', 'file:///repo/node_modules/zod/v4/core/parse.js', 9),
      frame(6, '(garbage collector)'),
      frame(7, 'writeGeneric', 'node:internal/stream_base_commons', 121),
    ],
    startTime: 1_000_000,
    // Sample ids, each with the time since the one before it (µs).
    samples: [2, 3, 4, 5, 6, 7, 2, 3],
    timeDeltas: [5000, 2000, 1000, 1000, 500, 500, 5000, 1000],
  };

  it('adds up self time by frame and by where the code lives, leaving the idle time out of the shares', () => {
    const summary = summarizeCpuProfile(profile, '/repo');
    expect(summary.totalMs).toBe(16);
    expect(summary.busyMs).toBe(6);
    expect(summary.frames).toEqual([
      { frame: 'parse (node_modules/zod/v4/core/parse.js:10)', ms: 4, share: 4 / 6 },
      { frame: 'fold (libs/projections/dist/project-events.js:42)', ms: 1, share: 1 / 6 },
      { frame: '(garbage collector)', ms: 0.5, share: 0.5 / 6 },
      { frame: 'writeGeneric (node:internal/stream_base_commons:122)', ms: 0.5, share: 0.5 / 6 },
    ]);
    expect(summary.places).toEqual([
      { frame: 'zod', ms: 4, share: 4 / 6 },
      { frame: 'libs/projections', ms: 1, share: 1 / 6 },
      { frame: '(garbage collector)', ms: 0.5, share: 0.5 / 6 },
      { frame: 'node:internal', ms: 0.5, share: 0.5 / 6 },
    ]);
  });

  it('counts only the samples taken in the window', () => {
    // Samples at 1,005,000 µs and on: the window holds the 2nd to the 4th (at 1,007,000, 1,008,000 and 1,009,000).
    const summary = summarizeCpuProfile(profile, '/repo', 15, { fromUs: 1_006_000, toUs: 1_009_000 });
    expect(summary.totalMs).toBe(4);
    expect(summary.frames.map((f) => [f.frame, f.ms])).toEqual([
      ['parse (node_modules/zod/v4/core/parse.js:10)', 3],
      ['fold (libs/projections/dist/project-events.js:42)', 1],
    ]);
  });

  it('keeps only the largest', () => {
    expect(summarizeCpuProfile(profile, '/repo', 1).frames.map((f) => f.frame)).toEqual(['parse (node_modules/zod/v4/core/parse.js:10)']);
  });
});
