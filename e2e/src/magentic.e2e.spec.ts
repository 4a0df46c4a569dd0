import type { RunEvent, RunTrace } from '@spindle/contracts';
import { startStack, type FakeOpenAIReply, type Stack } from '@spindle/testing';

/**
 * A scripted provider for a magentic run: the manager plans, dispatches the researcher, reports
 * no progress once (which makes it replan), dispatches the writer, then finishes.
 */
function script() {
  let ledgers = 0;
  return (body: { model: string; messages: Array<{ role: string; content: string }> }): FakeOpenAIReply => {
    const usage = { prompt_tokens: 50, completion_tokens: 10 };
    if (body.model !== 'manager') return { text: `${body.model} did the work`, usage };
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    if (!system.includes('is_progressing'))
      return { text: JSON.stringify({ facts: 'a customer asked', plan: ['research', 'write'] }), usage };
    ledgers += 1;
    const rounds: Record<number, unknown> = {
      1: { is_done: false, is_progressing: true, next_agent: 'researcher', instruction: 'find the refund rules' },
      2: { is_done: false, is_progressing: false, next_agent: 'researcher', instruction: 'try again' },
      3: { is_done: false, is_progressing: true, next_agent: 'writer', instruction: 'write the reply' },
      4: { is_done: true, is_progressing: true, answer: 'Refunds take five days.' },
    };
    return { text: JSON.stringify(rounds[ledgers] ?? rounds[4]), usage };
  };
}

describe('a magentic run through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ reply: script() as never });
    const put = await stack.api(`/v1/workflows/support-team`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'magentic',
        maxIterations: 6,
        manager: { name: 'lead', model: 'compatible:manager' },
        agents: [
          { name: 'researcher', model: 'compatible:researcher', description: 'finds facts' },
          { name: 'writer', model: 'compatible:writer', description: 'writes replies' },
        ],
      }),
    });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('plans, replans once when a round makes no progress, and finishes with the ledger answer', async () => {
    const { frames } = await stack.sse(`/v1/workflows/support-team/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"How long do refunds take?"}',
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { output: 'Refunds take five days.' } } });
    const started = events.filter((e) => e.type === 'node.started').map((e) => e.nodeId);
    expect(started.filter((id) => id === 'lead-plan')).toHaveLength(1);
    expect(started.filter((id) => id === 'lead-replan')).toHaveLength(1);
    expect(started.filter((id) => id === 'lead-ledger')).toHaveLength(4);
    expect(started.filter((id) => id === 'researcher')).toHaveLength(1);
    expect(started.filter((id) => id === 'writer')).toHaveLength(1);
    expect(stack.fake.callCount).toBe(8);

    const trace = (await (await stack.api(`/v1/runs/${events[0].runId}/trace`)).json()) as RunTrace;
    const replan = trace.spans.find((s) => s.kind === 'node' && s.nodeId === 'lead-replan');
    expect(replan).toMatchObject({ status: 'completed', iteration: 2, output: { plan: { plan: ['research', 'write'] } } });
    expect(trace.rollups.byNode['lead-ledger']).toMatchObject({ calls: 4 });
  });
});
