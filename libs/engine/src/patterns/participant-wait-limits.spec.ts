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
type Decide = (request: ModelRequest) => Behaviour;

/** A model port that behaves as `decide` says, and records whose calls saw their signal abort. */
function participants(decide: Decide): ModelPort & { aborted: string[] } {
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

const agent = (name: string, extra: Record<string, unknown> = {}) => ({ name, model: 'm:x', ...extra });
const told = (request: ModelRequest, word: string) => request.system?.includes(word) === true;

async function run(definition: unknown, decide: Decide) {
  const model = participants(decide);
  const { env, events } = recordingEnvironment({ model });
  const outcome = await executeRun(
    { definition: validateDefinition(definition), state: { input: 'a task' }, attempt: 1, worker: 'w' },
    { ...env, timeoutGraceMs: 10 },
  );
  return { outcome, events, model };
}

/** The run's outcome when `nodeId` overran its limit (and, given, the message that says so). */
const timedOut = (nodeId: string, message?: string) => ({
  status: 'failed',
  error: { code: 'participant_timeout', nodeId, ...(message !== undefined ? { message } : {}) },
});

const failedWith = (events: RunEvent[], nodeId: string) =>
  events.find((e) => e.type === 'node.failed' && e.nodeId === nodeId)?.data as { error: { code: string } } | undefined;

describe('participant wait limits', () => {
  it('sequential: a participant past its own timeout_ms is told to stop, and the run fails naming it', async () => {
    const writer = agent('writer', { instructions: 'Draft.' });
    const editor = agent('editor', { instructions: 'Edit.', timeout_ms: 20 });
    const { outcome, events, model } = await run({ kind: 'sequential', agents: [writer, editor] }, (r) =>
      told(r, 'Draft') ? 'a draft' : 'honours',
    );
    expect(outcome).toMatchObject(timedOut('editor', 'participant "editor" exceeded its wait limit of 20 ms'));
    // The cooperative deadline came first: the model call saw its signal abort.
    expect(model.aborted).toEqual(['Edit.']);
    expect(failedWith(events, 'editor')?.error.code).toBe('participant_timeout');
    expect(events.some((e) => e.type === 'node.completed' && e.nodeId === 'writer')).toBe(true);
  });

  it('concurrent: the pattern default cuts off an agent that ignores its signal; the others are stopped', async () => {
    // The patient one's own limit wins over the pattern's: it is still waiting when the staller is cut off.
    const agents = [agent('staller', { instructions: 'Stall.' }), agent('patient', { instructions: 'Wait.', timeout_ms: 60_000 })];
    const { outcome, model } = await run({ kind: 'concurrent', agentTimeoutMs: 20, agents }, (r) =>
      told(r, 'Stall') ? 'ignores' : 'honours',
    );
    expect(outcome).toMatchObject(timedOut('staller', 'branch staller: participant "staller" exceeded its wait limit of 20 ms'));
    expect(model.aborted).toEqual(['Wait.']);
  });

  it('concurrent: an aggregator takes the pattern default too', async () => {
    const aggregator = agent('combiner', { instructions: 'Combine.' });
    const { outcome } = await run({ kind: 'concurrent', agentTimeoutMs: 20, agents: [agent('a'), agent('b')], aggregator }, (r) =>
      told(r, 'Combine') ? 'honours' : 'an answer',
    );
    expect(outcome).toMatchObject(timedOut('combiner'));
  });

  it('handoff: the agent handed the turn overruns its limit inside the turn loop; the error still names it', async () => {
    const handOff = toolCalls({ name: 'handoff_to_billing', arguments: { message: 'refund' } });
    const { outcome, events } = await run({ kind: 'handoff', agents: [agent('triage'), agent('billing', { timeout_ms: 20 })] }, (r) =>
      told(r, 'You are "triage"') ? handOff : 'honours',
    );
    expect(outcome).toMatchObject(timedOut('billing', 'participant "billing" exceeded its wait limit of 20 ms'));
    expect(failedWith(events, 'handoff-loop')?.error.code).toBe('participant_timeout');
    expect(events.some((e) => e.nodeId === 'handoff-exhausted')).toBe(false);
  });

  it('group_chat: a manager that ignores its signal is cut off after the grace period', async () => {
    const manager = agent('host', { instructions: 'Host.' });
    const { outcome } = await run({ kind: 'group_chat', agentTimeoutMs: 20, agents: [agent('writer')], manager }, (r) =>
      told(r, 'Host') ? 'ignores' : 'hello',
    );
    expect(outcome).toMatchObject(timedOut('host', 'participant "host" exceeded its wait limit of 20 ms'));
  });

  it("magentic: the manager's planning turn names the manager and the node it overran in", async () => {
    const manager = agent('lead', { timeout_ms: 20 });
    const { outcome } = await run({ kind: 'magentic', agents: [agent('researcher')], manager }, () => 'honours');
    expect(outcome).toMatchObject(timedOut('lead-plan', 'participant "lead" (node "lead-plan") exceeded its wait limit of 20 ms'));
  });

  it('magentic: a worker past the default fails the run in its round', async () => {
    const ledger = JSON.stringify({ is_done: false, is_progressing: true, next_agent: 'researcher', instruction: 'look it up' });
    const plan = JSON.stringify({ facts: 'none', plan: ['look it up'] });
    const asksLedger = (r: ModelRequest) => String(r.messages[0].content).includes('progress ledger');
    const definition = {
      kind: 'magentic',
      agentTimeoutMs: 20,
      agents: [agent('researcher', { instructions: 'Research.' })],
      manager: agent('lead', { timeout_ms: 60_000 }),
    };
    const { outcome } = await run(definition, (r) => (told(r, 'Research') ? 'honours' : asksLedger(r) ? ledger : plan));
    expect(outcome).toMatchObject(timedOut('researcher'));
  });

  it('a participant within its limit answers as usual', async () => {
    const { outcome } = await run({ kind: 'sequential', agentTimeoutMs: 60_000, agents: [agent('writer')] }, () => 'done');
    expect(outcome).toMatchObject({ status: 'completed', output: { output: 'done' } });
  });

  it('compiles a limit to the participant node; limits and agent markers are not graph structure', () => {
    const plain = { kind: 'group_chat', agents: [agent('writer')], manager: agent('host') };
    const marked = agent('writer', { timeout_ms: 100, agent: { name: 'writer', version: 3 } });
    const limited = validateDefinition({ ...plain, agentTimeoutMs: 500, agents: [marked] });
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
    const refused = (definition: unknown, field: string) =>
      expect(() => validateDefinition(definition)).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field })] }));
    refused({ kind: 'sequential', agents: [agent('w', { timeout_ms: 0 })] }, 'agents[0].timeout_ms');
    refused({ kind: 'sequential', agentTimeoutMs: 1.5, agents: [agent('w')] }, 'agentTimeoutMs');
  });
});
