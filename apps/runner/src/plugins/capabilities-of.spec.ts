import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capabilitiesOf } from './capabilities-of';
import { loadPlugins } from './plugin-loader';

const repoRoot = join(__dirname, '../../../..');
const zod = JSON.stringify(require.resolve('zod'));

/** A plugin file in a directory of its own, with a package.json when given one. */
function plugin(source: string, pkg?: Record<string, unknown>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'spindle-capabilities-')), 'lib');
  mkdirSync(dir);
  if (pkg) writeFileSync(join(dir, '..', 'package.json'), JSON.stringify(pkg));
  writeFileSync(join(dir, 'plugin.js'), source);
  return join(dir, 'plugin.js');
}

describe('what a runner announces of its plugins', () => {
  it('describes built-ins, functions and tools with their schemas, and names the plugin by its nearest package.json', () => {
    const file = plugin(
      `const { z } = require(${zod});
       exports.functions = {
         score: { description: 'scores a text', pure: true, input: z.object({ text: z.string() }), run: () => ({}) },
         legacy: () => ({}),
       };
       const lookupInput = { type: 'object', properties: { id: { type: 'string' } } };
       exports.tools = { lookup: { description: 'looks up', input: lookupInput, run: () => ({}) } };`,
      { name: 'acme-scoring', version: '2.1.0' },
    );
    const { capabilities } = loadPlugins([file], { cwd: repoRoot });
    expect(capabilities.plugins).toEqual([{ name: 'acme-scoring', version: '2.1.0', path: file }]);
    expect(capabilities.functions.find((f) => f.name === 'noop')).toEqual({ name: 'noop', pure: true, plugin: 'built-in' });
    expect(capabilities.functions.find((f) => f.name === 'score')).toEqual({
      name: 'score',
      description: 'scores a text',
      inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
      pure: true,
      plugin: file,
    });
    expect(capabilities.functions.find((f) => f.name === 'legacy')).toEqual({ name: 'legacy', pure: false, plugin: file });
    expect(capabilities.tools).toEqual([
      { name: 'lookup', description: 'looks up', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, plugin: file },
    ]);
  });

  it("prefers the module's own name and version to its package.json's", () => {
    const file = plugin(`exports.name = 'orders'; exports.version = '0.3.0'; exports.functions = { f: () => ({}) };`, {
      name: 'not-this-one',
      version: '9.9.9',
    });
    expect(loadPlugins([file], { cwd: repoRoot }).capabilities.plugins).toEqual([{ name: 'orders', version: '0.3.0', path: file }]);
  });

  it('includes the output schema of a definition that declares one (the plugin SDK’s `output`)', () => {
    const run = () => ({});
    const tool = {
      origin: 'orders.js',
      definition: { run, output: { type: 'object', properties: { total: { type: 'number' } } } },
      input: { validate: (a: Record<string, unknown>) => a, jsonSchema: { type: 'object' } },
      spec: { name: 'find', description: '', inputSchema: { type: 'object' } },
    };
    const { tools } = capabilitiesOf([], new Map(), new Map([['find', tool]]));
    expect(tools).toEqual([
      {
        name: 'find',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { total: { type: 'number' } } },
        plugin: 'orders.js',
      },
    ]);
  });
});
