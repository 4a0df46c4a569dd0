import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';

const triage = (tools: string[]) => ({
  kind: 'graph',
  nodes: [{ id: 'triage', type: 'agent', model: 'm:x', tools, output_key: 'answer' }],
});

describe('handoff tools in the agent node', () => {
  it('offers engine-built handoff specs, never asks the ToolPort for them, and ends the turn on a handoff', async () => {
    const lookup = jest.fn(() => ({ status: 'paid' }));
    const calculator = jest.fn(() => 1);
    const model = scriptedModel([
      toolCalls(
        { name: 'lookup_order', arguments: { id: '7' } },
        { name: 'handoff_to_billing', arguments: { message: 'Order 7 is paid; customer wants a refund.' } },
        { name: 'calculator', arguments: {} },
      ),
    ]);
    const { env, events } = recordingEnvironment({ model, tools: { lookup_order: lookup, calculator } });
    const specs = jest.spyOn(env.tools, 'specs');
    const call = jest.spyOn(env.tools, 'call');
    const outcome = await executeRun(
      {
        definition: validateDefinition(triage(['lookup_order', 'calculator', 'handoff_to_billing'])),
        state: { input: 'refund order 7' },
        attempt: 1,
        worker: 'w',
      },
      env,
    );

    expect(outcome).toMatchObject({
      status: 'completed',
      output: { next_agent: 'billing', handoff_note: 'Order 7 is paid; customer wants a refund.' },
    });
    expect(outcome).not.toMatchObject({ output: { answer: expect.anything() } });
    expect(specs).toHaveBeenCalledWith(['lookup_order', 'calculator']);
    // The call before the handoff ran; the one after it did not: the turn was over.
    expect(call.mock.calls.map(([name]) => name)).toEqual(['lookup_order']);
    expect(calculator).not.toHaveBeenCalled();
    expect(model.requests).toHaveLength(1);
    const offered = model.requests[0].tools ?? [];
    expect(offered.map((t) => t.name)).toEqual(['lookup_order', 'calculator', 'handoff_to_billing']);
    expect(offered[2].inputSchema).toMatchObject({ required: ['message'] });

    const node = events.find((e) => e.type === 'node.started' && e.nodeId === 'triage');
    const spans = events.filter((e) => e.type === 'tool.called' || e.type === 'tool.returned');
    expect(spans.map((e) => [e.type, (e.data as { name: string }).name])).toEqual([
      ['tool.called', 'lookup_order'],
      ['tool.returned', 'lookup_order'],
      ['tool.called', 'handoff_to_billing'],
      ['tool.returned', 'handoff_to_billing'],
    ]);
    expect(spans.every((e) => e.parentSpanId === node?.spanId)).toBe(true);
    expect(spans[3].data).toMatchObject({ callId: 'call_handoff_to_billing_1', result: { handed_off_to: 'billing' } });
    expect(events.find((e) => e.type === 'node.completed')?.data).toMatchObject({
      output: { next_agent: 'billing', handoff_note: 'Order 7 is paid; customer wants a refund.' },
    });
  });

  it('sends a handoff the agent was not offered to the ToolPort, where it fails as an observation', async () => {
    const model = scriptedModel([toolCalls({ name: 'handoff_to_nobody', arguments: { message: 'hi' } }), 'I will answer myself.']);
    const { env, events } = recordingEnvironment({ model, tools: { lookup_order: () => 1 } });
    const outcome = await executeRun(
      { definition: validateDefinition(triage(['lookup_order'])), state: { input: 'hello' }, attempt: 1, worker: 'w' },
      env,
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { answer: 'I will answer myself.' } });
    expect(events.find((e) => e.type === 'tool.returned')?.data).toMatchObject({
      name: 'handoff_to_nobody',
      error: { code: 'tool_not_found' },
    });
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', isError: true });
  });
});
