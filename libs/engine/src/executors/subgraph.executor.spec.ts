import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';

describe('subgraph node', () => {
  const child = validateDefinition({
    kind: 'graph',
    nodes: [
      { id: 'greet', type: 'set', values: { greeting: 'hi {{input.name}}' } },
      { id: 'answer', type: 'llm', model: 'm:x', prompt: '{{greeting}}' },
    ],
    edges: [{ from: 'greet', to: 'answer' }],
  });

  it('runs the embedded workflow on a fresh state, nesting its spans under the node, and returns its output', async () => {
    const { env, events } = recordingEnvironment({ model: scriptedModel(['hello Ada']) });
    const outcome = await executeRun(
      {
        definition: validateDefinition({
          kind: 'graph',
          nodes: [{ id: 'helper', type: 'subgraph', workflow: 'greeter', input: { name: '{{input}}' }, output_key: 'reply' }],
        }),
        state: { input: 'Ada', secret: 'not for the child' },
        subgraphs: new Map([['greeter', { version: 3, definition: child }]]),
        attempt: 1,
        worker: 'w',
      },
      env,
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { reply: 'hello Ada' } });
    const helper = events.find((e) => e.type === 'node.started' && e.nodeId === 'helper');
    const inner = events.filter((e) => e.type === 'node.started' && e.nodeId !== 'helper');
    expect(inner.map((e) => [e.nodeId, e.path, e.parentSpanId])).toEqual([
      ['greet', 'root/helper/greet', helper?.spanId],
      ['answer', 'root/helper/answer', helper?.spanId],
    ]);
    expect(events.find((e) => e.type === 'node.completed' && e.nodeId === 'greet')?.data).toMatchObject({ output: { greeting: 'hi Ada' } });
  });

  it('fails when the workflow was not embedded in the run', async () => {
    const { env } = recordingEnvironment();
    const outcome = await executeRun(
      {
        definition: validateDefinition({ kind: 'graph', nodes: [{ id: 's', type: 'subgraph', workflow: 'missing' }] }),
        state: { input: 1 },
        attempt: 1,
        worker: 'w',
      },
      env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'workflow_not_found', nodeId: 's' } });
  });
});
