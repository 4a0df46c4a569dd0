import { describeGraph } from '../definition/describe-graph';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';
import { toGraph } from './compile-pattern';

describe('multi-agent patterns', () => {
  it('compiles sequential to a chain where each agent answers the previous one', async () => {
    const def = validateDefinition({
      kind: 'sequential',
      agents: [
        { name: 'drafter', model: 'm:x' },
        { name: 'editor', model: 'm:x', instructions: 'Tighten it.' },
      ],
    });
    const graph = toGraph(def);
    expect(describeGraph(graph).edges.map((e) => `${e.from}->${e.to}`)).toEqual(['drafter->editor', 'editor->result']);
    const model = scriptedModel(['a long draft', 'a draft']);
    const { env } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: def, state: { input: 'write a haiku' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({ status: 'completed', output: { drafter: 'a long draft', editor: 'a draft', output: 'a draft' } });
    expect(model.requests[1]).toMatchObject({ system: 'Tighten it.', messages: [{ role: 'user', content: 'a long draft' }] });
  });

  it('compiles concurrent to a fork of agents and an aggregator that sees every answer', async () => {
    const def = validateDefinition({
      kind: 'concurrent',
      agents: [
        { name: 'optimist', model: 'm:x' },
        { name: 'pessimist', model: 'm:x' },
      ],
      aggregator: { name: 'judge', model: 'm:x' },
      budget: { maxTotalTokens: 1000 },
    });
    const graph = toGraph(def);
    expect(graph.budget).toEqual({ maxTotalTokens: 1000 });
    expect(graph.nodes.map((n) => n.type)).toEqual(['fork', 'agent']);
    const model = scriptedModel(['good', 'bad', 'mixed']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: def, state: { input: 'ship it?' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({ status: 'completed', output: { output: 'mixed' } });
    const answers = (outcome as unknown as { output: { answers: Record<string, string> } }).output.answers;
    expect(Object.values(answers).sort()).toEqual(['bad', 'good']);
    expect(model.requests[2].messages[0]).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/optimist: (good|bad)\npessimist: (good|bad)/),
    });
    expect(
      events
        .filter((e) => e.type === 'branch.started')
        .map((e) => e.branchId)
        .sort(),
    ).toEqual(['optimist', 'pessimist']);
  });

  it('refuses a pattern with duplicate agent names, naming the field', () => {
    expect(() =>
      validateDefinition({
        kind: 'concurrent',
        agents: [
          { name: 'a', model: 'm:x' },
          { name: 'a', model: 'm:x' },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_definition' }));
    expect(() => validateDefinition({ kind: 'sequential', agents: [] })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'agents' })] }),
    );
  });

  it("shows on its node's start the catalog agent and version an entry came from; refuses a malformed marker", async () => {
    const def = validateDefinition({
      kind: 'sequential',
      agents: [
        { name: 'writer', model: 'm:x', agent: { name: 'writer', version: 3 } },
        { name: 'inline', model: 'm:x' },
      ],
    });
    const { env, events } = recordingEnvironment({ model: scriptedModel(['one', 'two']) });
    await executeRun({ definition: def, state: { input: 'x' }, attempt: 1, worker: 'w' }, env);
    const started = (id: string) => events.find((e) => e.type === 'node.started' && e.nodeId === id)?.data as { input: object };
    expect(started('writer').input).toMatchObject({ agent: { name: 'writer', version: 3 } });
    expect(started('inline').input).not.toHaveProperty('agent');
    expect(() =>
      validateDefinition({ kind: 'sequential', agents: [{ name: 'w', model: 'm:x', agent: { name: 'w', version: 0 } }] }),
    ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field: 'agents[0].agent.version' })] }));
  });
});
