import { describeGraph } from '../definition/describe-graph';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { toGraph } from './compile-pattern';

const support = (extra: Record<string, unknown> = {}) =>
  validateDefinition({
    kind: 'handoff',
    agents: [
      { name: 'triage', model: 'm:x', instructions: 'Route the customer.', tools: ['lookup_order'] },
      { name: 'billing', model: 'm:x', description: 'Refunds and invoices' },
      { name: 'tech', model: 'm:x', description: 'Bugs and outages' },
    ],
    ...extra,
  });

const started = (events: Array<{ type: string; nodeId?: string }>) => events.filter((e) => e.type === 'node.started').map((e) => e.nodeId);

describe('handoff pattern', () => {
  it('triage hands off to billing, which answers: the answer is the output, the transcript says who said what', async () => {
    const model = scriptedModel([
      toolCalls({ name: 'handoff_to_billing', arguments: { message: 'Refund invoice 7' } }),
      'Invoice 7 refunded.',
    ]);
    const { env, events } = recordingEnvironment({ model, tools: { lookup_order: () => ({}) } });
    const call = jest.spyOn(env.tools, 'call');
    const outcome = await executeRun({ definition: support(), state: { input: 'I was charged twice' }, attempt: 1, worker: 'w' }, env);

    expect(outcome).toMatchObject({
      status: 'completed',
      output: {
        output: 'Invoice 7 refunded.',
        done: true,
        transcript: [
          { agent: 'triage', handoff_to: 'billing', text: 'Refund invoice 7' },
          { agent: 'billing', text: 'Invoice 7 refunded.' },
        ],
      },
    });
    expect(started(events)).toEqual([
      'handoff-start',
      'handoff-loop',
      'handoff-turn',
      'handoff-route',
      'triage',
      'handoff-check',
      'handoff-passed',
      'handoff-turn',
      'handoff-route',
      'billing',
      'handoff-check',
      'handoff-answered',
      'handoff-finish',
      'handoff-finished',
    ]);
    expect(events.filter((e) => e.type === 'loop.iteration')).toHaveLength(2);
    expect(events.filter((e) => e.type.startsWith('tool.')).map((e) => [e.type, e.nodeId, e.iteration])).toEqual([
      ['tool.called', 'triage', 1],
      ['tool.returned', 'triage', 1],
    ]);
    expect(call).not.toHaveBeenCalled();

    // Each agent is offered a handoff to every other agent, with the team described in its instructions.
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['lookup_order', 'handoff_to_billing', 'handoff_to_tech']);
    expect(model.requests[1].tools?.map((t) => t.name)).toEqual(['handoff_to_triage', 'handoff_to_tech']);
    expect(model.requests[0].system).toMatch(
      /^Route the customer\.\n\nYou are "triage"[\s\S]*- billing: Refunds and invoices\n- tech: Bugs and outages/,
    );
    // Billing sees the request and the transcript with triage's note.
    expect(model.requests[1].messages).toEqual([
      {
        role: 'user',
        content:
          'I was charged twice\n\nThe conversation so far (JSON, oldest first): ' +
          '[{"agent":"triage","handoff_to":"billing","text":"Refund invoice 7"}]',
      },
    ]);
  });

  it('fails the run with max_iterations_exceeded when the agents keep handing off', async () => {
    const model = scriptedModel([
      toolCalls({ name: 'handoff_to_billing', arguments: { message: 'yours' } }),
      toolCalls({ name: 'handoff_to_triage', arguments: { message: 'no, yours' } }),
      toolCalls({ name: 'handoff_to_billing', arguments: { message: 'yours again' } }),
    ]);
    const { env, events } = recordingEnvironment({ model, tools: { lookup_order: () => ({}) } });
    const outcome = await executeRun({ definition: support({ maxIterations: 3 }), state: { input: 'help' }, attempt: 1, worker: 'w' }, env);

    expect(outcome).toMatchObject({
      status: 'failed',
      error: {
        code: 'max_iterations_exceeded',
        nodeId: 'handoff-exhausted',
        message: 'no agent answered without handing off within maxIterations (3)',
      },
    });
    expect(model.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'loop.iteration').map((e) => e.iteration)).toEqual([1, 2, 3]);
    expect(events.map((e) => `${e.type}:${e.nodeId ?? ''}`).slice(-6)).toEqual([
      'node.started:handoff-finished',
      'node.completed:handoff-finished',
      'checkpoint.saved:',
      'node.started:handoff-exhausted',
      'node.failed:handoff-exhausted',
      'run.failed:',
    ]);
    expect(events.find((e) => e.type === 'node.completed' && e.nodeId === 'handoff-loop')?.data).toMatchObject({
      output: {
        next_agent: 'billing',
        transcript: expect.arrayContaining([{ agent: 'billing', handoff_to: 'triage', text: 'no, yours' }]),
      },
    });
  });

  it('starts with the named agent and compiles to a loop framed by a fail exit that describeGraph draws', async () => {
    const model = scriptedModel(['Restart the router.']);
    const { env } = recordingEnvironment({ model });
    const def = support({ start: 'tech' });
    const outcome = await executeRun({ definition: def, state: { input: 'wifi down' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({
      status: 'completed',
      output: { output: 'Restart the router.', transcript: [{ agent: 'tech', text: 'Restart the router.' }] },
    });

    const view = describeGraph(toGraph(def));
    expect(view.edges.filter((e) => !e.parent).map((e) => `${e.from}-${e.handle}->${e.to}`)).toEqual([
      'handoff-start-default->handoff-loop',
      'handoff-loop-default->handoff-finished',
      'handoff-finished-false->handoff-exhausted',
    ]);
    // The loop's body is drawn inside it: the agents as one lane, routed to by handle.
    expect(view.edges.filter((e) => e.parent === 'handoff-loop').map((e) => `${e.from}-${e.handle}->${e.to}`)).toContain(
      'handoff-route-billing->billing',
    );
    expect(view.nodes.find((n) => n.id === 'billing')).toMatchObject({ parent: 'handoff-loop', lane: 'body', type: 'agent' });
    expect(view.mermaid).toContain('handoff-exhausted((("handoff-exhausted<br/><small>fail</small>")))');
    expect(() => support({ start: 'sales' })).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field: 'start' })] }));
  });
});
