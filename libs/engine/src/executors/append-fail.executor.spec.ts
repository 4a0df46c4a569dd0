import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment } from '../testing/in-process-ports';

const run = (definition: unknown, state: Record<string, unknown> = { input: 'x' }) => {
  const recording = recordingEnvironment();
  return executeRun({ definition: validateDefinition(definition), state, attempt: 1, worker: 'w' }, recording.env).then((outcome) => ({
    outcome,
    events: recording.events,
  }));
};

describe('append node', () => {
  it('accumulates across loop iterations, keeping the type of a whole placeholder', async () => {
    const { outcome, events } = await run(
      {
        kind: 'graph',
        nodes: [
          {
            id: 'collect',
            type: 'loop',
            max_steps: 5,
            until: 'size(seen) == 2',
            body: { nodes: [{ id: 'note', type: 'append', key: 'seen', value: { item: '{{input}}', at: 'round for {{input.name}}' } }] },
          },
        ],
      },
      { input: { name: 'Ada' } },
    );
    expect(outcome).toMatchObject({
      status: 'completed',
      output: {
        seen: [
          { item: { name: 'Ada' }, at: 'round for Ada' },
          { item: { name: 'Ada' }, at: 'round for Ada' },
        ],
      },
    });
    expect(events.filter((e) => e.type === 'loop.iteration')).toHaveLength(2);
  });

  it('fails the node when the key holds something other than a list', async () => {
    const { outcome } = await run({ kind: 'graph', nodes: [{ id: 'note', type: 'append', key: 'input', value: 1 }] });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'node_failed', nodeId: 'note', message: expect.stringContaining('not a list') },
    });
  });
});

describe('fail node', () => {
  it('fails the run with its code and rendered message, shown already in node.started', async () => {
    const { outcome, events } = await run({
      kind: 'graph',
      nodes: [
        { id: 'check', type: 'condition', expression: 'input == "ok"' },
        { id: 'give_up', type: 'fail', code: 'max_iterations_exceeded', message: 'gave up on {{input}}' },
      ],
      edges: [{ from: 'check', to: 'give_up', handle: 'false' }],
    });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'max_iterations_exceeded', message: 'gave up on x', nodeId: 'give_up' },
    });
    expect(events.map((e) => `${e.type}:${e.nodeId ?? ''}`).slice(-3)).toEqual([
      'node.started:give_up',
      'node.failed:give_up',
      'run.failed:',
    ]);
    expect(events.find((e) => e.type === 'node.started' && e.nodeId === 'give_up')?.data).toEqual({
      nodeType: 'fail',
      input: { code: 'max_iterations_exceeded', message: 'gave up on x' },
    });
  });

  it('refuses edges out of a fail node and codes with engine meaning', () => {
    expect(() =>
      validateDefinition({
        kind: 'graph',
        nodes: [
          { id: 'f', type: 'fail', message: 'no' },
          { id: 'after', type: 'set', values: { v: 1 } },
        ],
        edges: [{ from: 'f', to: 'after' }],
      }),
    ).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ field: 'edges[0]', node: 'f', message: expect.stringContaining('no edge may leave it') })],
      }),
    );
    expect(() =>
      validateDefinition({ kind: 'graph', nodes: [{ id: 'f', type: 'fail', code: 'canceled', message: 'fake cancel' }] }),
    ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field: 'nodes[0].code' })] }));
  });
});
