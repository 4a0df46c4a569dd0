import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';

const team = (extra: Record<string, unknown> = {}) =>
  validateDefinition({
    kind: 'magentic',
    agents: [
      { name: 'researcher', model: 'm:x', description: 'Finds facts' },
      { name: 'writer', model: 'm:x', description: 'Writes summaries' },
    ],
    manager: { name: 'lead', model: 'm:x' },
    ...extra,
  });

const json = (value: unknown) => JSON.stringify(value);
const ledger = (next_agent: string, instruction: string, is_progressing = true) =>
  json({ is_done: false, is_progressing, next_agent, instruction });

describe('magentic pattern', () => {
  it('plans, dispatches, replans exactly once after a round without progress, then completes with the answer', async () => {
    const model = scriptedModel([
      json({ facts: 'Need the 2025 price list.', plan: ['find prices', 'write summary'] }),
      ledger('researcher', 'Find the 2025 prices.'),
      'The 2025 prices are not published.',
      ledger('researcher', 'Try again.', false),
      json({ facts: '2025 prices are unpublished.', plan: ['estimate from 2024 prices'] }),
      ledger('writer', 'Summarise 2024 prices as the estimate.'),
      'Estimate: 2024 prices plus 3%.',
      json({ is_done: true, is_progressing: true, answer: 'Estimate: 2024 prices plus 3%.' }),
    ]);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: team(), state: { input: 'What will it cost in 2025?' }, attempt: 1, worker: 'w' }, env);

    expect(outcome).toMatchObject({
      status: 'completed',
      output: {
        output: 'Estimate: 2024 prices plus 3%.',
        plan: { plan: ['estimate from 2024 prices'] },
        transcript: [
          { agent: 'researcher', instruction: 'Find the 2025 prices.', text: 'The 2025 prices are not published.' },
          { agent: 'writer', instruction: 'Summarise 2024 prices as the estimate.', text: 'Estimate: 2024 prices plus 3%.' },
        ],
      },
    });
    const agentsRun = events.filter((e) => e.type === 'node.started' && (e.data as { nodeType: string }).nodeType === 'agent');
    expect(agentsRun.map((e) => [e.nodeId, e.iteration])).toEqual([
      ['lead-plan', undefined],
      ['lead-ledger', 1],
      ['researcher', 1],
      ['lead-ledger', 2],
      ['lead-replan', 2],
      ['lead-ledger', 3],
      ['writer', 3],
      ['lead-ledger', 4],
    ]);
    expect(
      events.filter((e) => e.type === 'node.completed' && e.nodeId === 'magentic-assess').map((e) => (e.data as { handle: string }).handle),
    ).toEqual(['researcher', 'no-progress', 'writer', 'is-done']);
    expect(events.filter((e) => e.type === 'model.completed' && e.nodeId === 'lead-replan')).toHaveLength(1);

    // The replan sees the stalled plan and what was learned; the next ledger works from the new plan.
    expect(model.requests[4].messages[0]).toMatchObject({
      content: expect.stringMatching(
        /This plan has stalled:\nFacts: Need the 2025 price list\.\nPlan: \["find prices","write summary"\][\s\S]*not published/,
      ),
    });
    expect(model.requests[5].messages[0]).toMatchObject({ content: expect.stringContaining('Plan: ["estimate from 2024 prices"]') });
    expect(model.requests[6].messages[0]).toMatchObject({
      content: expect.stringMatching(/Your instruction from the manager: Summarise 2024 prices as the estimate\.$/),
    });
    expect(model.requests[1].system).toContain('"next_agent":{"enum":["researcher","writer"]}');
  });

  it('fails the run with max_iterations_exceeded when the task is never done', async () => {
    const model = scriptedModel([
      json({ facts: 'f', plan: ['p'] }),
      ledger('researcher', 'look'),
      'nothing',
      ledger('researcher', 'look harder'),
      'still nothing',
    ]);
    const { env } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: team({ maxIterations: 2 }), state: { input: 'q' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'max_iterations_exceeded', nodeId: 'magentic-exhausted' } });
    expect(model.requests).toHaveLength(5);
  });

  it('refuses a ledger that says done without an answer', async () => {
    const model = scriptedModel([json({ facts: 'f', plan: ['p'] }), json({ is_done: true, is_progressing: true })]);
    const { env } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: team(), state: { input: 'q' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'validation_failed', message: expect.stringContaining('answer') } });
  });
});
