import type { RunEvent } from '@spindle/contracts';
import { graphStructureHash } from '../definition/graph-structure';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import type { ModelPort, ModelRequest, ModelResult } from '../ports';
import { recordingEnvironment, toolCalls } from '../testing/in-process-ports';
import { toGraph } from './compile-pattern';

/**
 * How a participant behaves, chosen from what it was told (its instructions end up in `system`):
 * a reply, `honours` (waits until its signal aborts, then stops with the signal's reason) or
 * `ignores` (never answers, whatever its signal says).
 */
type Behaviour = string | ReturnType<typeof toolCalls> | 'honours' | 'ignores';

function participants(decide: (request: ModelRequest) => Behaviour): ModelPort & { aborted: string[] } {
  const aborted: string[] = [];
  return {
    aborted,
    generate(request): Promise<ModelResult> {
      const behaviour = decide(request);
      if (behaviour === 'ignores') return new Promise(() => undefined);
      if (behaviour === 'honours')
        return new Promise((_, reject) =>
          request.signal.addEventListener('abort', () => {
            aborted.push(request.system ?? '');
            reject(request.signal.reason);
          }),
        );
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      if (typeof behaviour !== 'string') return Promise.resolve({ text: '', usage, finishReason: 'tool-calls', ...behaviour });
      return Promise.resolve({ text: behaviour, usage, finishReason: 'stop', toolCalls: [] });
    },
  };
}

const told = (request: ModelRequest, word: string) => request.system?.includes(word) === true;

async function run(definition: unknown, model: ModelPort) {
  const { env, events } = recordingEnvironment({ model });
  const outcome = await executeRun(
    { definition: validateDefinition(definition), state: { input: 'a task' }, attempt: 1, worker: 'w' },
    { ...env, timeoutGraceMs: 10 },
  );
  return { outcome, events };
}

const failedWith = (events: RunEvent[], nodeId: string) =>
  events.find((e) => e.type === 'node.failed' && e.nodeId === nodeId)?.data as { error: { code: string } } | undefined;

describe('participant wait limits', () => {
  it('sequential: a participant past its own timeout_ms is told to stop, and the run fails naming it', async () => {
    const model = participants((r) => (told(r, 'Draft') ? 'a draft' : 'honours'));
    const { outcome, events } = await run(
      {
        kind: 'sequential',
        agents: [
          { name: 'writer', model: 'm:x', instructions: 'Draft.' },
          { name: 'editor', model: 'm:x', instructions: 'Edit.', timeout_ms: 20 },
        ],
      },
      model,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'participant_timeout', nodeId: 'editor', message: 'participant "editor" exceeded its wait limit of 20 ms' },
    });
    // The cooperative deadline came first: the model call saw its signal abort.
    expect(model.aborted).toEqual(['Edit.']);
    expect(failedWith(events, 'editor')?.error.code).toBe('participant_timeout');
    expect(events.some((e) => e.type === 'node.completed' && e.nodeId === 'writer')).toBe(true);
  });

  it('concurrent: the pattern default cuts off an agent that ignores its signal; the others are stopped', async () => {
    const model = participants((r) => (told(r, 'Stall') ? 'ignores' : 'honours'));
    const { outcome } = await run(
      {
        kind: 'concurrent',
        agentTimeoutMs: 20,
        agents: [
          { name: 'staller', model: 'm:x', instructions: 'Stall.' },
          // Its own limit wins over the pattern's: it is still waiting when the staller is cut off.
          { name: 'patient', model: 'm:x', instructions: 'Wait.', timeout_ms: 60_000 },
        ],
      },
      model,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: {
        code: 'participant_timeout',
        nodeId: 'staller',
        message: 'branch staller: participant "staller" exceeded its wait limit of 20 ms',
      },
    });
    expect(model.aborted).toEqual(['Wait.']);
  });

  it('concurrent: an aggregator takes the pattern default too', async () => {
    const model = participants((r) => (told(r, 'Combine') ? 'honours' : 'an answer'));
    const { outcome } = await run(
      {
        kind: 'concurrent',
        agentTimeoutMs: 20,
        agents: [
          { name: 'a', model: 'm:x' },
          { name: 'b', model: 'm:x' },
        ],
        aggregator: { name: 'combiner', model: 'm:x', instructions: 'Combine.' },
      },
      model,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'participant_timeout', nodeId: 'combiner' } });
  });

  it('handoff: the agent handed the turn overruns its limit inside the turn loop; the error still names it', async () => {
    const model = participants((r) =>
      told(r, 'You are "triage"') ? toolCalls({ name: 'handoff_to_billing', arguments: { message: 'refund' } }) : 'honours',
    );
    const { outcome, events } = await run(
      {
        kind: 'handoff',
        agents: [
          { name: 'triage', model: 'm:x' },
          { name: 'billing', model: 'm:x', timeout_ms: 20 },
        ],
      },
      model,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'participant_timeout', nodeId: 'billing', message: 'participant "billing" exceeded its wait limit of 20 ms' },
    });
    expect(failedWith(events, 'handoff-loop')?.error.code).toBe('participant_timeout');
    expect(events.some((e) => e.nodeId === 'handoff-exhausted')).toBe(false);
  });

  it('group_chat: a manager that ignores its signal is cut off after the grace period', async () => {
    const model = participants((r) => (told(r, 'Host') ? 'ignores' : 'hello'));
    const { outcome } = await run(
      {
        kind: 'group_chat',
        agentTimeoutMs: 20,
        agents: [{ name: 'writer', model: 'm:x' }],
        manager: { name: 'host', model: 'm:x', instructions: 'Host.' },
      },
      model,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'participant_timeout', nodeId: 'host', message: 'participant "host" exceeded its wait limit of 20 ms' },
    });
  });

  it("magentic: the manager's planning turn names the manager and the node it overran in", async () => {
    const model = participants(() => 'honours');
    const { outcome } = await run(
      {
        kind: 'magentic',
        agents: [{ name: 'researcher', model: 'm:x' }],
        manager: { name: 'lead', model: 'm:x', timeout_ms: 20 },
      },
      model,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: {
        code: 'participant_timeout',
        nodeId: 'lead-plan',
        message: 'participant "lead" (node "lead-plan") exceeded its wait limit of 20 ms',
      },
    });
  });

  it('magentic: a worker past the default fails the run in its round', async () => {
    const ledger = JSON.stringify({ is_done: false, is_progressing: true, next_agent: 'researcher', instruction: 'look it up' });
    const plan = JSON.stringify({ facts: 'none', plan: ['look it up'] });
    const model = participants((r) =>
      told(r, 'Research') ? 'honours' : r.messages[0].content.toString().includes('progress ledger') ? ledger : plan,
    );
    const { outcome } = await run(
      {
        kind: 'magentic',
        agentTimeoutMs: 20,
        agents: [{ name: 'researcher', model: 'm:x', instructions: 'Research.' }],
        manager: { name: 'lead', model: 'm:x', timeout_ms: 60_000 },
      },
      model,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'participant_timeout', nodeId: 'researcher' } });
  });

  it('a participant within its limit answers as usual', async () => {
    const { outcome } = await run(
      { kind: 'sequential', agentTimeoutMs: 60_000, agents: [{ name: 'writer', model: 'm:x' }] },
      {
        generate: async () => ({ text: 'done', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, toolCalls: [] }),
      },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { output: 'done' } });
  });

  it('compiles a limit to the participant node; limits and agent markers are not graph structure', () => {
    const plain = { kind: 'group_chat', agents: [{ name: 'writer', model: 'm:x' }], manager: { name: 'host', model: 'm:x' } } as const;
    const limited = validateDefinition({
      ...plain,
      agentTimeoutMs: 500,
      agents: [{ name: 'writer', model: 'm:x', timeout_ms: 100, agent: { name: 'writer', version: 3 } }],
    });
    const loop = toGraph(limited).nodes.find((n) => n.type === 'loop');
    const body = loop?.type === 'loop' ? loop.body.nodes : [];
    expect(body.find((n) => n.id === 'writer')).toMatchObject({
      timeout_ms: 100,
      participant: 'writer',
      agent: { name: 'writer', version: 3 },
    });
    expect(body.find((n) => n.id === 'host')).toMatchObject({ timeout_ms: 500, participant: 'host' });
    expect(graphStructureHash(limited)).toBe(graphStructureHash(validateDefinition(plain)));
  });

  it('refuses a limit that is not a positive whole number of milliseconds, named', () => {
    expect(() => validateDefinition({ kind: 'sequential', agents: [{ name: 'w', model: 'm:x', timeout_ms: 0 }] })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'agents[0].timeout_ms' })] }),
    );
    expect(() => validateDefinition({ kind: 'sequential', agentTimeoutMs: 1.5, agents: [{ name: 'w', model: 'm:x' }] })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'agentTimeoutMs' })] }),
    );
  });
});
