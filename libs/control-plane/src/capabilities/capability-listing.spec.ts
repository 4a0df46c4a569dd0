import type { RunnerCapabilities } from '@spindle/contracts';
import { listFunctions, listTools } from './capability-listing';

const runner = (id: string, over: Partial<RunnerCapabilities>): RunnerCapabilities => ({
  runnerId: id,
  startedAt: '2026-01-01T00:00:00.000Z',
  announcedAt: `2026-01-01T00:00:1${id.slice(-1)}.000Z`,
  runTimeoutCeilingMs: 3_600_000,
  plugins: [],
  functions: [],
  tools: [],
  ...over,
});

describe('listing the runners’ capabilities', () => {
  it('merges a function two runners announce alike, with both runners', () => {
    const noop = { name: 'noop', pure: true, plugin: 'built-in' };
    const listed = listFunctions([runner('r2', { functions: [noop] }), runner('r1', { functions: [noop] })]);
    expect(listed).toEqual([
      {
        name: 'noop',
        pure: true,
        plugin: { name: 'built-in', path: 'built-in' },
        runners: [
          { id: 'r1', announcedAt: '2026-01-01T00:00:11.000Z' },
          { id: 'r2', announcedAt: '2026-01-01T00:00:12.000Z' },
        ],
      },
    ]);
  });

  it('lists a tool once per variant when its schema or plugin version differs between runners', () => {
    const plugin = (version: string) => [{ name: 'calc', version, path: 'calc.js' }];
    const add = (schema: Record<string, unknown>) => ({ name: 'add', description: 'adds', inputSchema: schema, plugin: 'calc.js' });
    const listed = listTools([
      runner('r1', { plugins: plugin('1.0.0'), tools: [add({ type: 'object' })] }),
      runner('r2', { plugins: plugin('2.0.0'), tools: [add({ type: 'object', required: ['a'] })] }),
      runner('r3', { plugins: plugin('2.0.0'), tools: [add({ required: ['a'], type: 'object' })] }),
    ]);
    expect(listed.map((t) => [t.name, t.plugin.version, t.runners.map((r) => r.id)])).toEqual([
      ['add', '2.0.0', ['r2', 'r3']],
      ['add', '1.0.0', ['r1']],
    ]);
  });

  it('names a plugin a runner does not describe by its path, and sorts by name', () => {
    const listed = listFunctions([
      runner('r1', {
        functions: [
          { name: 'zeta', pure: false, plugin: 'z.js', inputSchema: { type: 'object' } },
          { name: 'alpha', pure: false, plugin: 'z.js' },
        ],
      }),
    ]);
    expect(listed.map((f) => [f.name, f.plugin])).toEqual([
      ['alpha', { name: 'z.js', path: 'z.js' }],
      ['zeta', { name: 'z.js', path: 'z.js' }],
    ]);
  });
});
