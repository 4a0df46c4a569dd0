import type { Replay, RunEvent } from '@spindle/contracts';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually, launchChromium, signInWithKey, startStack, type FakeOpenAIReply, type Stack } from '@spindle/testing';
import type { Browser } from 'playwright-core';

const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');

/** The provider looks the order up first, then answers from what the tool said: the same conversation, the same reply. */
function supportModel(body: { messages: Array<{ role: string; content?: unknown }> }): FakeOpenAIReply {
  const usage = { prompt_tokens: 100, completion_tokens: 10 };
  const question = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
  const orderId = /A-\d+/.exec(question)?.[0] ?? 'A-0';
  if (!body.messages.some((m) => m.role === 'tool'))
    return { text: '', toolCalls: [{ id: `call_${orderId}`, name: 'lookup_order', arguments: { orderId } }], usage };
  return { text: `Order ${orderId}: see the lookup.`, usage };
}

const support = (instructions: string) => ({
  kind: 'graph',
  nodes: [
    {
      id: 'support',
      type: 'agent',
      model: 'compatible:support-model',
      instructions,
      prompt: '{{input.question}}',
      tools: ['lookup_order'],
      max_turns: 4,
      output_key: 'answer',
    },
    { id: 'filed', type: 'set', values: { filed: true } },
  ],
  edges: [{ from: 'support', to: 'filed' }],
});

describe('replay: recorded runs re-driven through another version, their calls answered from the recording', () => {
  let stack: Stack;
  const recorded: string[] = [];
  const json = async <T>(res: Response) => (await res.json()) as T;
  const log = async (runId: string) => (await json<{ events: RunEvent[] }>(await stack.api(`/v1/runs/${runId}/events`))).events;
  const replay = async (body: unknown) => stack.api('/v1/workflows/support/replays', { method: 'POST', body: JSON.stringify(body) });
  const settled = async (replayId: string) => {
    let replay: Replay | undefined;
    await eventually(async () => {
      replay = await json<Replay>(await stack.api(`/v1/replays/${replayId}`));
      expect(replay.runs.filter((r) => r.outcome === 'pending').length).toBe(0);
    }, 600);
    return replay!;
  };

  beforeAll(async () => {
    stack = await startStack({
      reply: supportModel as never,
      runnerEnv: {
        SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js',
        SPINDLE_MODEL_PRICES: '{"compatible:support-model":{"inputPerMTok":2,"outputPerMTok":8}}',
      },
    });
    expect(
      (await stack.api('/v1/workflows/support', { method: 'PUT', body: JSON.stringify(support('You answer questions about orders.')) }))
        .status,
    ).toBe(201);
    for (let i = 0; i < 20; i++) {
      const res = await stack.api('/v1/workflows/support/runs', {
        method: 'POST',
        body: JSON.stringify({ input: { question: `Where is order A-${1000 + i}?` } }),
      });
      recorded.push((await json<{ runId: string }>(res)).runId);
    }
    for (const runId of recorded) await eventually(async () => expect((await log(runId)).at(-1)?.type).toBe('run.completed'), 60_000);
    // The changed prompt: version 2.
    expect(
      (await stack.api('/v1/workflows/support', { method: 'PUT', body: JSON.stringify(support('You answer in French.')) })).status,
    ).toBe(201);
  });
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('replays 20 recorded runs against a changed prompt: each stops at the changed node, and no model is called', async () => {
    const before = await Promise.all(recorded.map(log));
    const calls = stack.fake.callCount;
    const res = await replay({ runs: recorded, version: 2 });
    expect(res.status).toBe(201);
    const created = await json<Replay>(res);
    expect(res.headers.get('location')).toBe(`/v1/replays/${created.replayId}`);
    expect([created.workflow, created.onDivergence, created.runs.length]).toEqual([{ name: 'support', version: 2 }, 'stop', 20]);
    const done = await settled(created.replayId);
    expect(done.summary.byOutcome).toEqual({ stopped: 20 });
    for (const run of done.runs) {
      expect(run.divergence).toMatchObject({
        kind: 'model_call',
        nodeId: 'support',
        detail: 'the system prompt "You answer in French." where the recording sent "You answer questions about orders."',
      });
      expect(run.error?.code).toBe('replay_diverged');
      expect(run.calls).toEqual({ modelServed: 0, modelMade: 0, toolServed: 0, toolMade: 0 });
    }
    expect(stack.fake.callCount).toBe(calls);
    expect(done.summary.costUsd.recorded).toBeGreaterThan(0);
    expect([done.summary.costUsd.replay, done.summary.costUsd.spent]).toEqual([0, 0]);
    // The recorded runs are only read.
    expect(await Promise.all(recorded.map(log))).toEqual(before);
    // Each replay is a run of its own that says what it replays.
    const first = await log(done.runs[0].runId);
    expect(first[0]).toMatchObject({
      type: 'run.queued',
      data: { workflow: { version: 2 }, replayOf: { runId: recorded[0], onDivergence: 'stop' } },
    });

    // The console's Replays page: the replay's runs, each stopped at the changed node, saying what differs.
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await page.goto(`${stack.gatewayUrl}/#/replays`);
    await page.getByRole('link', { name: created.replayId }).click();
    const rows = page.getByTestId('replay-runs').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(20);
    expect(await page.getByTestId('replay-runs').locator('tr[data-outcome="stopped"]').count()).toBe(20);
    expect(await rows.first().getByTestId('divergence-detail').textContent()).toBe(
      'the system prompt "You answer in French." where the recording sent "You answer questions about orders."',
    );
    expect(await page.getByTestId('replay-summary').textContent()).toContain('20 stopped');
    await page.screenshot({ path: `${SHOTS}/replay-report.png` });
  });

  it('replays through the recorded version as it ran: every call served, the same outcome, nothing spent', async () => {
    const calls = stack.fake.callCount;
    const res = await replay({ runs: recorded.slice(0, 3), version: 1 });
    const done = await settled((await json<Replay>(res)).replayId);
    expect(done.runs.map((r) => [r.outcome, r.divergence, r.calls])).toEqual(
      Array(3).fill(['same', null, { modelServed: 2, modelMade: 0, toolServed: 1, toolMade: 0 }]),
    );
    expect(stack.fake.callCount).toBe(calls);
    expect(done.summary.costUsd.replay).toBeCloseTo(done.summary.costUsd.recorded, 9);
    expect(done.summary.costUsd.spent).toBe(0);
    const trace = await json<{ run: { usage: { costUsd?: number } } }>(await stack.api(`/v1/runs/${done.runs[0].runId}/trace`));
    expect(trace.run.usage.costUsd ?? 0).toBe(0);
  });

  it('with onDivergence call, makes the differing calls for real and reports what they cost', async () => {
    const calls = stack.fake.callCount;
    const res = await replay({ runs: [recorded[0]], version: 2, onDivergence: 'call' });
    const [run] = (await settled((await json<Replay>(res)).replayId)).runs;
    expect(run.outcome).toBe('diverged');
    expect(run.divergence?.kind).toBe('model_call');
    // The second call's conversation holds the first's (changed) system prompt: it is made too; the lookup is the same and served.
    expect(run.calls).toEqual({ modelServed: 0, modelMade: 2, toolServed: 1, toolMade: 0 });
    expect(stack.fake.callCount).toBe(calls + 2);
    expect(run.costUsd.spent).toBeGreaterThan(0);
    expect(run.costUsd.spent).toBeCloseTo(run.costUsd.replay, 9);
  });

  it('refuses what it cannot replay before storing anything, naming the run', async () => {
    const problem = async (body: unknown) => {
      const res = await replay(body);
      const p = await json<{ code: string; errors?: Array<{ field: string }> }>(res);
      return [res.status, p.code, p.errors?.map((e) => e.field)];
    };
    expect(await problem({ runs: [recorded[0], recorded[0]] })).toEqual([400, 'validation_failed', ['runs[1]']]);
    expect(await problem({ runs: [recorded[0], '01JZZZZZZZZZZZZZZZZZZZZZZZ'] })).toEqual([404, 'run_not_found', ['runs[1]']]);
    expect(await problem({ runs: [recorded[0]], version: 9 })).toEqual([404, 'version_not_found', undefined]);
    expect(await problem({ runs: [] })).toEqual([400, 'validation_failed', ['runs']]);
    expect(await problem({ runs: [recorded[0]], onDivergence: 'guess' })).toEqual([400, 'validation_failed', ['onDivergence']]);
    expect((await stack.api('/v1/workflows/other', { method: 'PUT', body: JSON.stringify(support('x')) })).status).toBe(201);
    const other = await stack.api('/v1/workflows/other/replays', { method: 'POST', body: JSON.stringify({ runs: [recorded[0]] }) });
    expect([other.status, (await json<{ code: string }>(other)).code]).toEqual([400, 'validation_failed']);
    const listed = await json<{ replays: Array<{ runs: number }> }>(await stack.api('/v1/replays'));
    expect(listed.replays.map((r) => r.runs)).toEqual([1, 3, 20]);
  });
});
