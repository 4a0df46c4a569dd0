import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublicError, SpindleError } from '@spindle/contracts';
import { loadPlugins } from './plugin-loader';
import { recordingVoice } from './user-code-voice.fixture';

const repoRoot = join(__dirname, '../../../..');
const examples = ['examples/plugins/calculator.js', 'examples/plugins/http-request.js', 'examples/plugins/order-lookup.js'];
// Temp plugins live outside the repo, so they require zod by its absolute path.
const zod = JSON.stringify(require.resolve('zod'));

function plugin(source: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'spindle-plugin-')), 'plugin.js');
  writeFileSync(file, source);
  return file;
}

describe('loadPlugins', () => {
  it('loads the example plugins by repo-relative paths, next to the built-ins', () => {
    const { functions, tools } = loadPlugins(examples, { cwd: repoRoot });
    expect(tools.names().sort()).toEqual(['calculator', 'http_request', 'lookup_order']);
    expect(functions.names()).toEqual(expect.arrayContaining(['noop', 'word_count', 'increment', 'sleep', 'calculate']));
  });

  it('still loads an old-style plugin that needs nothing from Spindle, its own PublicError shown as public', async () => {
    const { tools, functions } = loadPlugins([
      plugin(`
        class PublicError extends Error {
          constructor(message, data) { super(message); this.name = 'PublicError'; this.data = data; }
        }
        exports.tools = { find: { input: { type: 'object' }, run: () => { throw new PublicError('nothing found', { q: 1 }); } } };
        exports.functions = { shout: ({ args }) => ({ shouted: String(args.text).toUpperCase() }) };
      `),
    ]);
    const ctx = { ...recordingVoice(), runId: 'r', nodeId: 'n', callId: 'c', signal: new AbortController().signal };
    await expect(tools.call('find', {}, ctx)).rejects.toMatchObject({ name: 'PublicError', message: 'nothing found', data: { q: 1 } });
    await expect(tools.call('find', {}, ctx)).rejects.toBeInstanceOf(PublicError);
    await expect(functions.get('shout')?.({ ...ctx, args: { text: 'hi' }, state: {} })).resolves.toEqual({ shouted: 'HI' });
  });

  it('loads a plugin made with definePlugin, whose name and version ride along', () => {
    const file = plugin(`
      const { definePlugin, defineFunction } = require('@spindle/plugin');
      module.exports = definePlugin({ name: 'p', version: '2.0.0', functions: { f: defineFunction({ run: () => ({ ok: true }) }) } });
    `);
    expect(loadPlugins([file]).functions.names()).toContain('f');
    expect(require(file)).toMatchObject({ name: 'p', version: '2.0.0' });
  });

  it('runs only functions declared pure (and the built-ins) without waiting for the log', () => {
    const { functions } = loadPlugins(
      [
        plugin(`exports.functions = {
          double: { pure: true, run: ({ n }) => ({ n: n * 2 }) },
          charge: { pure: false, run: () => ({}) },
          send: { run: () => ({}) },
          shout: ({ args }) => ({ shouted: String(args.text).toUpperCase() }),
        };`),
      ],
      { cwd: repoRoot },
    );
    expect(['noop', 'word_count', 'increment', 'sleep', 'double'].every((name) => functions.isPure(name))).toBe(true);
    expect(['charge', 'send', 'shout', 'unknown'].some((name) => functions.isPure(name))).toBe(false);
    expect(() => loadPlugins([plugin(`exports.functions = { f: { pure: 'yes', run: () => ({}) } };`)])).toThrow(
      /function "f": "pure" must be true or false/,
    );
    expect(() => loadPlugins([plugin(`exports.tools = { t: { pure: true, run: () => ({}) } };`)])).toThrow(
      /tool "t": "pure" is for functions; a tool call always waits for the log/,
    );
  });

  it('gives tool specs with JSON Schema converted from zod, in the order asked', () => {
    const { tools } = loadPlugins(examples, { cwd: repoRoot });
    const [order, calc] = tools.specs(['lookup_order', 'calculator', 'calculator']);
    expect(order.name).toBe('lookup_order');
    expect(calc).toEqual({
      name: 'calculator',
      description: expect.stringContaining('arithmetic'),
      inputSchema: {
        type: 'object',
        properties: { expression: { type: 'string', minLength: 1, maxLength: 1000, description: expect.any(String) } },
        required: ['expression'],
      },
    });
    // A default makes the field optional for the caller.
    const http = tools.specs(['http_request'])[0].inputSchema as { required: string[]; properties: Record<string, unknown> };
    expect(http.required).toEqual(['url']);
    expect(http.properties.method).toEqual({ type: 'string', enum: ['GET', 'POST'], default: 'GET' });
  });

  it('passes a JSON Schema input through as the spec', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false };
    const { tools } = loadPlugins([
      plugin(`exports.tools = { search: { description: 'find', input: ${JSON.stringify(schema)}, run: () => [] } };`),
    ]);
    expect(tools.specs(['search'])).toEqual([{ name: 'search', description: 'find', inputSchema: schema }]);
  });

  it('validates with the JSON Schema draft the schema declares', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    };
    const { tools } = loadPlugins([plugin(`exports.tools = { pair: { input: ${JSON.stringify(schema)}, run: (args) => args } };`)]);
    const ctx = { ...recordingVoice(), runId: 'r', nodeId: 'n', callId: 'c', signal: new AbortController().signal };
    await expect(tools.call('pair', { pair: ['a', 1] }, ctx)).resolves.toEqual({ pair: ['a', 1] });
    await expect(tools.call('pair', { pair: ['a', 'b'] }, ctx)).rejects.toMatchObject({
      code: 'validation_failed',
      issues: [{ field: 'pair[1]' }],
    });
  });

  it("gives tools and function definitions the runner's guarded fetch, and by default one that reaches nothing internal", async () => {
    const guarded = (async () => new Response('guarded')) as typeof fetch;
    const source = `exports.tools = { get: { run: async (_a, { fetch }) => (await fetch('http://x.example/')).text() } };
      exports.functions = { read: { run: async (_a, { fetch }) => ({ body: await (await fetch('http://x.example/')).text() }) } };`;
    const { tools, functions } = loadPlugins([plugin(source)], { fetch: guarded });
    const ctx = { ...recordingVoice(), runId: 'r', nodeId: 'n', callId: 'c', signal: new AbortController().signal };
    await expect(tools.call('get', {}, ctx)).resolves.toBe('guarded');
    await expect(functions.get('read')?.({ ...ctx, args: {}, state: {}, nodeId: 'n', runId: 'r', signal: ctx.signal })).resolves.toEqual({
      body: 'guarded',
    });
    const local = plugin(`exports.tools = { local: { run: (_a, { fetch }) => fetch('http://127.0.0.1:65432/') } };`);
    await expect(loadPlugins([local]).tools.call('local', {}, ctx)).rejects.toMatchObject({ code: 'egress_refused' });
  });

  it('throws tool_not_found for an unknown tool, in specs and in call', async () => {
    const { tools } = loadPlugins([]);
    expect(() => tools.specs(['nope'])).toThrow(expect.objectContaining({ code: 'tool_not_found' }));
    const ctx = { ...recordingVoice(), runId: 'r', nodeId: 'n', callId: 'c', signal: new AbortController().signal };
    await expect(tools.call('nope', {}, ctx)).rejects.toBeInstanceOf(SpindleError);
  });

  it('refuses a name registered twice, naming both origins', () => {
    const a = plugin(`exports.tools = { t: { run: () => 1 } }; exports.functions = { f: () => ({}) };`);
    const b = plugin(`exports.tools = { t: { run: () => 2 } };`);
    expect(() => loadPlugins([a, b])).toThrow(`plugin "${b}": tool "t" is already registered (by plugin "${a}")`);
    expect(() => loadPlugins([plugin('exports.functions = { sleep: () => ({}) };')])).toThrow(
      /function "sleep" is already registered \(a built-in\)/,
    );
    expect(() => loadPlugins(['examples/plugins/calculator.js', './examples/plugins/calculator.js'], { cwd: repoRoot })).toThrow(
      /plugin ".\/examples\/plugins\/calculator.js" is listed twice \(also as "examples\/plugins\/calculator.js"\)/,
    );
  });

  it('explains a bad plugin or entry, naming the plugin and the entry', () => {
    const load = (source: string) => () => loadPlugins([plugin(source)]);
    expect(load('exports.other = 1;')).toThrow(/exports neither "functions" nor "tools"/);
    expect(load('exports.tools = [];')).toThrow(/"tools" must be an object of name → definition/);
    expect(load('exports.tools = { t: () => 1 };')).toThrow(
      /tool "t" must be an object with a run\(args, ctx\) method \(a bare function is accepted for functions only\)/,
    );
    expect(load('exports.functions = { f: { go: () => 1 } };')).toThrow(/function "f" must be a function or an object with a run/);
    expect(load('exports.tools = { t: { run: () => 1, timeout: 5 } };')).toThrow(/tool "t" has unknown key\(s\) "timeout"/);
    expect(load('exports.tools = { t: { run: () => 1, timeoutMs: -1 } };')).toThrow(/tool "t": "timeoutMs" must be an integer/);
    expect(load('exports.tools = { t: { run: () => 1, retry: { attempts: 0 } } };')).toThrow(/"retry.attempts" must be an integer from 1/);
    expect(load('exports.tools = { "bad name": { run: () => 1 } };')).toThrow(/tool "bad name": a tool name may only have/);
    expect(load(`exports.tools = { t: { input: require(${zod}).z.string(), run: () => 1 } };`)).toThrow(
      /tool "t": "input" must describe an object/,
    );
    expect(load(`exports.tools = { t: { input: require(${zod}).z.object({ d: require(${zod}).z.date() }), run: () => 1 } };`)).toThrow(
      /cannot be converted to JSON Schema/,
    );
    expect(load('exports.tools = { t: { input: { type: "object", properties: { a: { type: "nonsense" } } }, run: () => 1 } };')).toThrow(
      /tool "t": "input" is not a valid JSON Schema/,
    );
    expect(load('throw new Error("boom at import");')).toThrow(/failed to load: boom at import/);
    expect(() => loadPlugins(['examples/plugins/missing.js'], { cwd: repoRoot })).toThrow(
      /plugin "examples\/plugins\/missing.js": no file .*missing.js/,
    );
  });

  it('accepts a plugin whose exports sit under default (ESM / compiled TypeScript)', () => {
    const { functions } = loadPlugins([plugin('exports.default = { functions: { hello: () => ({ hi: true }) } };')]);
    expect(functions.names()).toContain('hello');
  });
});
