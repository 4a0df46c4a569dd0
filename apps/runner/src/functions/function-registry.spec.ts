import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFunctionRegistry } from './function-registry';

function plugin(source: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'spindle-plugin-')), 'plugin.js');
  writeFileSync(file, source);
  return file;
}

describe('loadFunctionRegistry', () => {
  it('has the built-ins and adds plugin functions by name', async () => {
    const registry = loadFunctionRegistry([plugin('exports.functions = { double: ({ args }) => ({ doubled: args.n * 2 }) };')]);
    expect(registry.names()).toEqual(expect.arrayContaining(['noop', 'word_count', 'increment', 'sleep', 'double']));
    const double = registry.get('double');
    expect(await double?.({ args: { n: 21 }, state: {}, nodeId: 'x', runId: 'r', signal: new AbortController().signal })).toEqual({ doubled: 42 });
    expect(registry.get('missing')).toBeUndefined();
  });

  it('refuses a plugin that redefines a name or exports no functions', () => {
    expect(() => loadFunctionRegistry([plugin('exports.functions = { noop: () => ({}) };')])).toThrow(/already registered/);
    expect(() => loadFunctionRegistry([plugin('exports.other = 1;')])).toThrow(/no "functions" export/);
  });
});
