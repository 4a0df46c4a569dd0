import { createSpindleClient } from '@spindle/client';
import { resolve } from 'node:path';
import { httpUploader, readExamples, runExample, startStack, type Stack } from '@spindle/testing';

// Every example in examples/ (read from the folder, so a new one is tested without touching this file) runs
// offline to the outcome its `expect` names, answering people's requests as its `answers` say.
const examples = readExamples(resolve(__dirname, '../../examples'));

describe('every example in examples/, against the real stack, offline', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      runnerEnv: {
        SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js,examples/plugins/calculator.js',
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds an example per feature', () => {
    expect(examples.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        'agent-tools',
        'fork-join',
        'loop',
        'human-review',
        'tool-approval-expiry',
        'sequential',
        'concurrent',
        'handoff',
        'group-chat',
        'magentic',
        'subgraph',
        'budget-breach',
        'describe-image',
        'long-conversation',
        'support-kb',
      ]),
    );
  });

  it.each(examples.map((e) => [e.name, e] as const))('%s reaches its expected outcome', async (_name, example) => {
    // Through stack.api, so every answer is also checked against the gateway's OpenAPI document.
    const spindle = createSpindleClient({
      baseUrl: stack.gatewayUrl,
      fetch: (url, init) => stack.api(String(url).slice(stack.gatewayUrl.length), init),
    });
    const upload = httpUploader((url, init) => stack.api(url, init));
    const outcome = await runExample(spindle, example, { timeoutMs: 30_000, upload });
    expect(outcome.mismatches).toEqual([]);
    expect(outcome.status).toBe(example.expect.status);
  });
});
