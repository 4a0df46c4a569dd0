import { createSpindleClient } from '@spindle/client';
import { resolve } from 'node:path';
import {
  cliDeployer,
  httpUploader,
  readExamples,
  readExperimentExamples,
  runExample,
  runExperimentExample,
  startStack,
  type Stack,
} from '@spindle/testing';

// Every example in examples/ (read from the folder, so a new one is tested without touching this file) runs
// offline to the outcome its `expect` names, answering people's requests as its `answers` say.
const examples = readExamples(resolve(__dirname, '../../examples'));
const experimentExamples = readExperimentExamples(resolve(__dirname, '../../examples'));

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
        'triage',
        'evaluated-answer',
        'evaluated-by-judge',
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
    // A workflow built in code is saved as a user does: `spindle deploy examples/<name>.workflow.ts`.
    const deploy = cliDeployer({ url: stack.gatewayUrl, token: stack.adminKey });
    const outcome = await runExample(spindle, example, { timeoutMs: 30_000, upload, deploy });
    expect(outcome.mismatches).toEqual([]);
    expect(outcome.status).toBe(example.expect.status);
  });

  it.each(experimentExamples.map((e) => [e.name, e] as const))(
    'experiment %s compares its versions as expected',
    async (_name, example) => {
      const spindle = createSpindleClient({
        baseUrl: stack.gatewayUrl,
        fetch: (url, init) => stack.api(String(url).slice(stack.gatewayUrl.length), init),
      });
      const outcome = await runExperimentExample(spindle, example);
      expect(outcome.mismatches).toEqual([]);
      expect(outcome.experiments.map((e) => e.status)).toEqual(example.versions.map(() => 'completed'));
    },
  );

  it('saves the workflow built in code and the same one written as JSON as one version', async () => {
    // triage.workflow.ts written out by hand: PUT after the module is deployed, it is not a new version.
    const handWritten = {
      kind: 'graph',
      description: 'Triage built in code: a message long enough goes to a scripted agent that names the team; a short one is sent back.',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { minWords: { default: 3, type: 'integer', minimum: 1, maximum: 9007199254740991 } },
      },
      nodes: [
        { id: 'count', type: 'function', function: 'word_count', args: { text: '{{input.message}}' } },
        { id: 'long_enough', type: 'condition', expression: 'word_count >= parameters.minWords' },
        {
          id: 'classify',
          type: 'agent',
          model: 'offline:script',
          instructions: 'Name the team that should answer: billing or support.',
          prompt: '{{input.message}}',
          script: [{ when: 'refund', answer: 'billing' }, { answer: 'support' }],
          output_key: 'team',
        },
        { id: 'ask_more', type: 'set', values: { team: 'none', reply: 'Tell us a little more, please.' } },
        { id: 'tally', type: 'function', function: 'increment', args: { key: 'triaged' } },
      ],
      edges: [
        { from: 'count', to: 'long_enough' },
        { from: 'long_enough', to: 'classify', handle: 'true' },
        { from: 'long_enough', to: 'ask_more', handle: 'false' },
        { from: 'classify', to: 'tally' },
      ],
    };
    await cliDeployer({ url: stack.gatewayUrl, token: stack.adminKey })(resolve(__dirname, '../../examples/triage.workflow.ts'));
    const deployed = (await (await stack.api('/v1/workflows/triage')).json()) as { version: number; definition: unknown };
    expect(deployed.definition).toEqual(handWritten);
    const res = await stack.api('/v1/workflows/triage', { method: 'PUT', body: JSON.stringify(handWritten) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'triage', version: deployed.version, created: false });
  });
});
