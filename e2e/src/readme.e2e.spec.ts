import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AnswerBindings, answerMismatches, readmeExamples, ShellSession, startStack, type Stack } from '@spindle/testing';

// The README's shell examples, in order, in one bash as its reader would type them, against a real stack:
// each answer printed must be the one the README shows after the command (see libs/testing/src/readme).
const ROOT = resolve(__dirname, '../..');
const examples = readmeExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const runnable = examples.filter((e) => e.skipped === undefined);
const firstLine = (command: string) => command.split('\n')[0];

describe('the README examples, run against the real stack', () => {
  let stack: Stack;
  let shell: ShellSession;
  let checkout: string;
  const bindings = new AnswerBindings();

  beforeAll(async () => {
    stack = await startStack();
    // The reader's checkout: the admin key where `npm start` keeps it, and the examples. It lies inside the
    // repository so that `npx spindle` finds the workspace's bin (offline: npx never asks the registry).
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    checkout = mkdtempSync(join(ROOT, 'tmp', 'readme-'));
    mkdirSync(join(checkout, '.spindle'));
    writeFileSync(join(checkout, '.spindle', 'admin-key'), `${stack.adminKey}\n`);
    symlinkSync(join(ROOT, 'examples'), join(checkout, 'examples'));
    shell = new ShellSession({
      cwd: checkout,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? checkout,
        SPINDLE_URL: stack.gatewayUrl,
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      },
    });
  });
  afterAll(async () => {
    shell?.close();
    if (checkout) rmSync(checkout, { recursive: true, force: true });
    await stack?.stop();
  });

  it('skips only examples a listed rule says the test stack cannot run', () => {
    expect(examples.filter((e) => e.skipped !== undefined).map((e) => [firstLine(e.command), e.skipped])).toEqual([
      ['npm ci', 'installs, starts or tests a stack of its own'],
      [
        'npm run examples                  # saves and runs them all, prints each run and whether it did what it should',
        'examples.e2e.spec.ts runs every example in examples/',
      ],
      [
        'npx spindle workflows put hello examples/hello-workflow.json     # hello v1 saved',
        'shows the live tree drawn on a terminal; cli.e2e.spec.ts runs it under a pseudo-terminal',
      ],
      [
        'npx spindle webhooks listen --workflow hello --events run.completed --count 1',
        'waits for a delivery; cli.e2e.spec.ts runs it with a run that sends one',
      ],
    ]);
  });

  it.each(runnable.map((e) => [e.line, firstLine(e.command), e] as const))('line %d: %s', async (_line, _command, example) => {
    // The reader's localhost:8080 is the stack's gateway; an id the README showed earlier is the real one.
    const command = bindings.substitute(example.command).replaceAll('localhost:8080', new URL(stack.gatewayUrl).host);
    const result = await shell.run(command);
    expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({ status: 0, stderr: '' });
    if (example.answer) expect(answerMismatches(example.answer, result.stdout, bindings)).toEqual([]);
  });
});
