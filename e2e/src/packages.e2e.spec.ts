import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The published packages stand alone: each is packed as `npm publish` would, installed from its
 * tarball into an empty project with no registry (they have no runtime dependency), and a strict
 * TypeScript program compiled against the installed types runs and prints what it should.
 * Needs the build (`npm test` builds first): the tarballs hold `dist/`.
 */
const ROOT = resolve(__dirname, '../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface PackedPackage {
  /** The package's folder in the repository. */
  dir: string;
  name: string;
  /** A consumer program (TypeScript, strict): it prints one JSON value. */
  program: string;
  prints: unknown;
}

const PACKAGES: PackedPackage[] = [
  {
    dir: 'libs/plugin',
    name: '@spindle/plugin',
    program: [
      `import { definePlugin, defineFunction, defineTool, PublicError } from '@spindle/plugin';`,
      `const shout = defineFunction({`,
      `  description: 'upper-cases a text',`,
      `  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },`,
      `  retry: { attempts: 2, backoffMs: 10 },`,
      `  async run(args, ctx) {`,
      `    await ctx.emit('shouted', { length: String(args.text).length });`,
      `    await ctx.reportUsage({ costUsd: 0.001, units: { calls: 1 }, label: 'shouting' });`,
      `    return { shouted: String(args.text).toUpperCase() };`,
      `  },`,
      `});`,
      `// @ts-expect-error the types ship with the package: a function returns an object of state keys`,
      `void defineFunction({ run: () => 'not an object' });`,
      `const lookup = defineTool({ input: { type: 'object' }, run: () => { throw new PublicError('no such order', { id: 'X' }); } });`,
      `const plugin = definePlugin({ name: 'shouting', version: '1.2.3', functions: { shout }, tools: { lookup } });`,
      `const said: unknown[] = [];`,
      `const ctx = {`,
      `  state: {}, nodeId: 'n', runId: 'r', signal: new AbortController().signal, attempt: 1, fetch,`,
      `  emit: async (name: string, data: unknown) => void said.push({ name, data }),`,
      `  reportUsage: async (usage: unknown) => void said.push(usage),`,
      `};`,
      `void (async () => {`,
      `  const result = await plugin.functions.shout.run({ text: 'hi' }, ctx);`,
      `  let refusal: unknown;`,
      `  try { await plugin.tools.lookup.run({}, { ...ctx, callId: 'c1' }); }`,
      `  catch (e) { refusal = { name: (e as Error).name, message: (e as Error).message, data: (e as PublicError).data }; }`,
      `  console.log(JSON.stringify({ name: plugin.name, version: plugin.version, result, said, refusal }));`,
      `})();`,
    ].join('\n'),
    prints: {
      name: 'shouting',
      version: '1.2.3',
      result: { shouted: 'HI' },
      said: [
        { name: 'shouted', data: { length: 2 } },
        { costUsd: 0.001, units: { calls: 1 }, label: 'shouting' },
      ],
      refusal: { name: 'PublicError', message: 'no such order', data: { id: 'X' } },
    },
  },
  {
    dir: 'libs/sdk',
    name: '@spindle/sdk',
    program: [
      `import { workflow, sequential, isWorkflow } from '@spindle/sdk';`,
      `const hello = workflow('hello', { description: 'installed' })`,
      `  .node('count', { type: 'function', function: 'word_count', args: { text: '{{input.text}}' } })`,
      `  .node('long', { type: 'condition', expression: 'word_count > 2' })`,
      `  .node('done', { type: 'set', values: { done: true } })`,
      `  .edge('count', 'long')`,
      `  .edge('long', 'done', { handle: 'true' });`,
      `// @ts-expect-error the types ship with the package: an edge to an unknown node does not compile`,
      `void (() => hello.edge('long', 'nowhere', { handle: 'false' }));`,
      `const brief = sequential('brief', { agents: [{ name: 'writer', model: 'offline:echo' }] });`,
      `console.log(JSON.stringify({ hello: hello.build(), brief, workflows: [isWorkflow(hello), isWorkflow(brief), isWorkflow({})] }));`,
    ].join('\n'),
    prints: {
      hello: {
        kind: 'graph',
        description: 'installed',
        nodes: [
          { id: 'count', type: 'function', function: 'word_count', args: { text: '{{input.text}}' } },
          { id: 'long', type: 'condition', expression: 'word_count > 2' },
          { id: 'done', type: 'set', values: { done: true } },
        ],
        edges: [
          { from: 'count', to: 'long' },
          { from: 'long', to: 'done', handle: 'true' },
        ],
      },
      brief: { kind: 'sequential', agents: [{ name: 'writer', model: 'offline:echo' }] },
      workflows: [true, true, false],
    },
  },
];

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

describe('the published packages, packed and installed into an empty project', () => {
  const work = mkdtempSync(join(tmpdir(), 'spindle-packages-'));
  const project = join(work, 'consumer');
  const packed = PACKAGES.map((p) => {
    const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], join(ROOT, p.dir))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    return { ...p, tarball: join(work, info.filename), files: info.files.map((f) => f.path) };
  });

  beforeAll(() => {
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...packed.map((p) => p.tarball)], project);
  });

  it.each(packed.map((p) => [p.name, p] as const))('%s holds its build and manifest only, and no runtime dependency', (_name, p) => {
    expect(p.files).toContain('package.json');
    expect(p.files).toContain('dist/index.js');
    expect(p.files).toContain('dist/index.d.ts');
    expect(p.files.filter((f) => !/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/.test(f) || /\.spec\./.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', p.name, 'package.json'), 'utf8')) as { dependencies?: object };
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it.each(packed.map((p) => [p.name, p] as const))('%s: a strict TypeScript program compiles against it and runs', (name, p) => {
    const file = `${name.replace(/\W+/g, '-').replace(/^-/, '')}.ts`;
    writeFileSync(join(project, file), p.program);
    run(
      process.execPath,
      [TSC, '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023,dom', file],
      project,
    );
    expect(JSON.parse(run(process.execPath, [file.replace(/\.ts$/, '.js')], project))).toEqual(p.prints);
  });
});
