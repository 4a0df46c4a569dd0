import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';

const chat = (extra: Record<string, unknown> = {}) =>
  validateDefinition({
    kind: 'group_chat',
    agents: [
      { name: 'writer', model: 'm:x', description: 'Drafts the text' },
      { name: 'critic', model: 'm:x', description: 'Reviews drafts' },
    ],
    manager: { name: 'host', model: 'm:x', instructions: 'Keep it short.' },
    ...extra,
  });

const pick = (next: string, reason = 'because') => JSON.stringify({ next, reason });

describe('group_chat pattern', () => {
  it('the manager picks writer, then critic, then FINISH: the last answer is the output', async () => {
    const model = scriptedModel([
      pick('writer', 'need a draft'),
      'Roses are red.',
      pick('critic', 'review it'),
      'Fine, ship it.',
      pick('FINISH', 'approved'),
    ]);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun(
      { definition: chat({ maxIterations: 3 }), state: { input: 'a two-line poem' }, attempt: 1, worker: 'w' },
      env,
    );

    expect(outcome).toMatchObject({
      status: 'completed',
      output: {
        output: 'Fine, ship it.',
        selection: { next: 'FINISH', reason: 'approved' },
        transcript: [
          { agent: 'writer', text: 'Roses are red.' },
          { agent: 'critic', text: 'Fine, ship it.' },
        ],
      },
    });
    const agentsRun = events.filter((e) => e.type === 'node.started' && (e.data as { nodeType: string }).nodeType === 'agent');
    expect(agentsRun.map((e) => [e.nodeId, e.iteration])).toEqual([
      ['host', 1],
      ['writer', 1],
      ['host', 2],
      ['critic', 2],
      ['host', 3],
    ]);
    expect(
      events.filter((e) => e.type === 'node.completed' && e.nodeId === 'chat-pick').map((e) => (e.data as { handle: string }).handle),
    ).toEqual(['writer', 'critic', 'FINISH']);
    expect(events.some((e) => e.nodeId === 'chat-exhausted')).toBe(false);

    // The manager answers against a schema naming the participants and FINISH, and sees the team and transcript.
    expect(model.requests[0].system).toMatch(/^Keep it short\.\n\nGive your final answer as JSON only/);
    expect(model.requests[0].system).toContain('"enum":["writer","critic","FINISH"]');
    expect(model.requests[0].messages[0]).toMatchObject({
      content: expect.stringContaining('Participants:\n- writer: Drafts the text\n- critic: Reviews drafts'),
    });
    expect(model.requests[3].messages[0]).toMatchObject({
      content: expect.stringContaining('[{"agent":"writer","text":"Roses are red."}]\n\nIt is your turn, "critic".'),
    });
    expect(model.requests[4].messages[0]).toMatchObject({ content: expect.stringContaining('{"agent":"critic","text":"Fine, ship it."}') });
  });

  it('fails the run with max_iterations_exceeded when the manager never says FINISH', async () => {
    const model = scriptedModel([pick('writer'), 'draft one', pick('writer'), 'draft two']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun({ definition: chat({ maxIterations: 2 }), state: { input: 'a poem' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'max_iterations_exceeded', nodeId: 'chat-exhausted' } });
    expect(model.requests).toHaveLength(4);
    expect(events.filter((e) => e.type === 'loop.iteration')).toHaveLength(2);
  });

  it('fails the manager node when it names someone outside the chat, and refuses a manager named like an agent', async () => {
    const { env } = recordingEnvironment({ model: scriptedModel([pick('poet')]) });
    const outcome = await executeRun({ definition: chat(), state: { input: 'x' }, attempt: 1, worker: 'w' }, env);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: {
        code: 'validation_failed',
        nodeId: 'chat-loop',
        message: expect.stringContaining('host: agent "host" answer does not match its schema'),
      },
    });
    expect(() => chat({ manager: { name: 'critic', model: 'm:x' } })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'manager.name' })] }),
    );
  });
});
