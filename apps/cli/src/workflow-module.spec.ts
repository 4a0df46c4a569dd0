import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { workflow } from '@spindle/sdk';
import { loadWorkflowModule, workflowsIn } from './workflow-module';

// Modules inside the repository (tmp/ is ignored), so `@spindle/sdk` and `typescript` resolve as in a user's project.
const ROOT = resolve(__dirname, '../../..');
mkdirSync(join(ROOT, 'tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'tmp', 'workflow-module-'));
const write = (name: string, text: string, at = dir) => {
  writeFileSync(join(at, name), text);
  return join(at, name);
};
const hello = workflow('hello').node('greet', { type: 'set', values: { greeting: 'hi' } });

describe('the workflows a module exports', () => {
  it('takes the default and named exports that are workflows, once each, with their own names', () => {
    const other = workflow('other').node('x', { type: 'set', values: { x: 1 } });
    const found = workflowsIn({ default: hello, hello, other, helper: () => 1, n: 3 }, 'm.ts');
    expect(found).toEqual([
      { name: 'hello', definition: hello.build() },
      { name: 'other', definition: other.build() },
    ]);
    // A CommonJS module seen through import(): its exports under `default`.
    expect(workflowsIn({ default: { other } }, 'm.cjs')).toEqual([{ name: 'other', definition: other.build() }]);
  });

  it('refuses a module that exports no workflow, two of one name, or one that does not build', () => {
    expect(() => workflowsIn({ helper: 1 }, 'm.ts')).toThrow(
      expect.objectContaining({ code: 'workflow_module', message: expect.stringContaining('m.ts exports no workflow') }),
    );
    const twin = workflow('hello').node('other', { type: 'set', values: { a: 1 } });
    expect(() => workflowsIn({ hello, twin }, 'm.ts')).toThrow('exports two workflows named "hello"');
    expect(() => workflowsIn({ empty: workflow('empty') }, 'm.ts')).toThrow(
      'workflow "empty" does not build: workflow "empty" has no nodes',
    );
  });
});

describe('loading a TypeScript module', () => {
  it('transpiles it in memory with the project’s typescript, its relative TypeScript imports too', async () => {
    write('nodes.ts', `export const greet = { type: 'set', values: { greeting: 'Hello {{input.name}}' } } as const;\n`);
    const file = write(
      'hello.workflow.ts',
      [
        `import { workflow } from '@spindle/sdk';`,
        `import { greet } from './nodes.js';`,
        `const name: string = 'hello-code';`,
        `export default workflow(name).node('greet', greet);`,
      ].join('\n'),
    );
    expect(await loadWorkflowModule(file, dir)).toEqual([
      {
        name: 'hello-code',
        definition: { kind: 'graph', nodes: [{ id: 'greet', type: 'set', values: { greeting: 'Hello {{input.name}}' } }] },
      },
    ]);
  });

  it('says what went wrong: the module threw, the file is missing, typescript is not installed', async () => {
    const throwing = write('throws.ts', `throw new Error('no config here');\n`);
    await expect(loadWorkflowModule(throwing, dir)).rejects.toThrow(
      expect.objectContaining({
        code: 'workflow_module',
        message: expect.stringMatching(/throws\.ts threw while loading: no config here$/),
      }),
    );
    await expect(loadWorkflowModule('missing.ts', dir)).rejects.toThrow(expect.objectContaining({ code: 'usage' }));
    // Outside the repository nothing provides typescript.
    const alone = mkdtempSync(join(tmpdir(), 'spindle-no-ts-'));
    await expect(loadWorkflowModule(write('w.ts', 'export default 1;\n', alone), alone)).rejects.toThrow(
      /no `typescript` package is installed next to it or in .*: install it \(npm install --save-dev typescript\) or compile the module to \.js first/,
    );
  });
});
