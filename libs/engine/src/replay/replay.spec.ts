import type { RunEvent } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { CallRecording, servedSeqs } from './call-recording';
import { replayReport } from './replay-report';

/** An agent that looks an order up, then a node that files the answer. */
const workflow = (opts: { instructions?: string; filed?: string; limit?: number } = {}) => ({
  kind: 'graph',
  nodes: [
    {
      id: 'support',
      type: 'agent',
      model: 'openai:gpt-4o-mini',
      instructions: opts.instructions ?? 'Answer the customer.',
      tools: ['lookup'],
      output_key: 'answer',
    },
    { id: 'ship', type: 'tool', tool: 'ship', args: { order: '{{input}}', limit: opts.limit ?? 1 } },
    { id: 'file', type: 'set', values: { filed: opts.filed ?? 'yes' } },
  ],
  edges: [
    { from: 'support', to: 'ship' },
    { from: 'ship', to: 'file' },
  ],
});
const start = (definition: unknown) => ({ definition: validateDefinition(definition), state: { input: '7' }, attempt: 1, worker: 'w1' });
const tools = { lookup: () => ({ status: 'shipped' }), ship: () => ({ ok: true }) };
/** A model that must never be asked: a replay of an unchanged run calls no provider. */
const noModel = () => scriptedModel([]);

async function recorded(): Promise<RunEvent[]> {
  const scripted = scriptedModel([toolCalls({ name: 'lookup', arguments: { order: '7' } }), 'Order 7 shipped.']);
  // Priced at a tenth of a cent a call, so the replay's cost can be told from what it spent.
  const model = {
    generate: async (request: Parameters<typeof scripted.generate>[0]) => {
      const result = await scripted.generate(request);
      return { ...result, usage: { ...result.usage, costUsd: 0.001 } };
    },
  };
  const { env, events } = recordingEnvironment({ model, tools });
  expect((await executeRun(start(workflow()), env)).status).toBe('completed');
  return events;
}

async function replay(source: RunEvent[], definition: unknown, onDivergence: 'stop' | 'call' = 'stop', model = noModel()) {
  const recording = new CallRecording('run-0', onDivergence, source);
  const calledTools: string[] = [];
  const spy = Object.fromEntries(Object.entries(tools).map(([name, fn]) => [name, () => (calledTools.push(name), fn())]));
  const { env, events } = recordingEnvironment({ model, tools: spy, recording });
  const outcome = await executeRun(start(definition), env);
  return { outcome, events, model, calledTools, report: replayReport(source, events) };
}

describe('replaying a recorded run through a version', () => {
  it('answers every call from the recording when nothing changed: no model or tool is called, the run ends as recorded', async () => {
    const source = await recorded();
    const { outcome, events, model, calledTools, report } = await replay(source, workflow());
    expect([outcome.status, model.requests.length, calledTools]).toEqual(['completed', 0, []]);
    expect(report).toMatchObject({
      outcome: 'same',
      divergence: null,
      calls: { modelServed: 2, modelMade: 0, toolServed: 2, toolMade: 0 },
    });
    const served = events.filter((e) => e.type === 'model.completed').map((e) => e.type === 'model.completed' && e.data.replayedFrom);
    const recordedSeqs = source.filter((e) => e.type === 'model.completed').map((e) => ({ runId: 'run-0', seq: e.seq }));
    expect(served).toEqual(recordedSeqs);
  });

  it('leaves a served answer out of what the run spent, and says what it would have cost', async () => {
    const source = await recorded();
    const { outcome, report } = await replay(source, workflow());
    expect([outcome.usage.totalTokens, outcome.usage.costUsd ?? 0]).toEqual([0, 0]);
    expect(report.costUsd).toEqual({ recorded: 0.002, replay: 0.002, spent: 0 });
  });

  it('stops at a changed prompt, naming the node and the message that differs, without asking the model', async () => {
    const source = await recorded();
    const { outcome, model, report } = await replay(source, workflow({ instructions: 'Answer the customer in French.' }));
    expect([outcome.status, outcome.status === 'failed' && outcome.error.code, model.requests.length]).toEqual([
      'failed',
      'replay_diverged',
      0,
    ]);
    expect(report.outcome).toBe('stopped');
    expect(report.divergence).toMatchObject({
      kind: 'model_call',
      nodeId: 'support',
      detail: 'the system prompt "Answer the customer in French." where the recording sent "Answer the customer."',
    });
    const firstModelCall = source.find((e) => e.type === 'model.started')!;
    expect(report.divergence?.sourceSeq).toBe(firstModelCall.seq);
  });

  it('with onDivergence call, makes the differing call for real and goes on, serving what is still the same', async () => {
    const source = await recorded();
    const model = scriptedModel([toolCalls({ name: 'lookup', arguments: { order: '7' } }), 'Commande 7 expédiée.']);
    const { outcome, report, calledTools } = await replay(source, workflow({ instructions: 'In French.' }), 'call', model);
    // The model was asked again (its conversation differs); the tools were asked the same and answered from the recording.
    expect([outcome.status, model.requests.length, calledTools]).toEqual(['completed', 2, []]);
    expect(report).toMatchObject({ outcome: 'diverged', divergence: { kind: 'model_call', nodeId: 'support' } });
    expect(report.calls).toEqual({ modelServed: 0, modelMade: 2, toolServed: 2, toolMade: 0 });
  });

  it('stops at a tool call with other arguments, naming them', async () => {
    const source = await recorded();
    const { outcome, calledTools, report } = await replay(source, workflow({ limit: 2 }));
    expect([outcome.status, calledTools]).toEqual(['failed', []]);
    expect(report.divergence).toMatchObject({
      kind: 'tool_call',
      nodeId: 'ship',
      detail: 'tool "ship" with "{\\"limit\\":2,\\"order\\":\\"7\\"}" where the recording passed "{\\"limit\\":1,\\"order\\":\\"7\\"}"',
    });
  });

  it('reports a node that answers otherwise with the same calls, and a node the replay never ran', async () => {
    const source = await recorded();
    expect((await replay(source, workflow({ filed: 'no' }))).report).toMatchObject({
      outcome: 'diverged',
      divergence: { kind: 'node_output', nodeId: 'file' },
    });
    const shorter = { ...workflow(), nodes: workflow().nodes.slice(0, 2), edges: workflow().edges.slice(0, 1) };
    const { report } = await replay(source, shorter);
    expect(report.divergence).toMatchObject({
      kind: 'branch',
      nodeId: 'file',
      detail: 'node "file" of the recorded run did not run in the replay',
    });
  });

  it('serves equal calls in recorded order, once each, and never again what a resumed replay already took', async () => {
    const source = await recorded();
    const { events } = await replay(source, workflow());
    const taken = servedSeqs(events);
    expect(taken.size).toBe(4);
    const resumed = new CallRecording('run-0', 'stop', source, taken);
    const started = source.find((e) => e.type === 'model.started')!;
    expect(started.type === 'model.started' && resumed.takeModel(started.data)).toBeUndefined();
    const fresh = new CallRecording('run-0', 'stop', source);
    expect(started.type === 'model.started' && fresh.takeModel(started.data)?.seq).toBeGreaterThan(started.seq);
    expect(started.type === 'model.started' && fresh.takeModel(started.data)).toBeUndefined();
  });
});
