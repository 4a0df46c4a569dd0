import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import {
  startStack,
  stopProcess,
  type FakeOpenAIReply,
  type Stack,
  launchChromium,
  longLoopWorkflow,
  pageShows,
  signInWithKey,
} from '@spindle/testing';
import type { Browser, Page } from 'playwright-core';

/** Screenshots go to tmp/ unless asked for the docs: `SPINDLE_SCREENSHOTS=docs/screenshots npx nx run e2e:e2e`. */
const SHOTS = resolve(__dirname, '../..', process.env.SPINDLE_SCREENSHOTS ?? 'tmp/screenshots');

/** Model calls wait here while a test holds them, so "running" is seen because the test made it so, not because the machine was slow. */
let heldModels: Promise<void> = Promise.resolve();
function holdModelCalls(): () => void {
  let release!: () => void;
  heldModels = new Promise((resolve) => (release = resolve));
  return release;
}

/** An agent that looks an order up once, then answers; a plain model call answers at once. */
async function scriptedProvider(body: {
  tools?: Array<{ function?: { name?: string } }>;
  messages?: Array<{ role: string; content: unknown }>;
}): Promise<FakeOpenAIReply> {
  await heldModels;
  const delayMs = 50;
  // The front desk of the handoff team passes a refund to billing; billing answers.
  if (body.tools?.some((t) => t.function?.name === 'handoff_to_billing')) {
    return {
      text: '',
      toolCalls: [{ id: 'call_h', name: 'handoff_to_billing', arguments: { message: 'customer wants a refund for A-1002' } }],
      delayMs,
      usage: { prompt_tokens: 30, completion_tokens: 6 },
    };
  }
  if (body.tools?.length && !body.messages?.some((m) => m.role === 'tool')) {
    return {
      text: '',
      toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1002' } }],
      delayMs,
      usage: { prompt_tokens: 40, completion_tokens: 8 },
    };
  }
  return { text: 'Order A-1002 shipped with DHL.', delayMs, usage: { prompt_tokens: 60, completion_tokens: 9 } };
}

describe('the console in a browser, against the real stack', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const api = (path: string, init?: RequestInit) => stack.api(path, init);
  const put = async (name: string, definition: unknown) =>
    expect((await api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  const start = async (name: string, input: unknown = 'hi') =>
    ((await (await api(`/v1/workflows/${name}/runs`, { method: 'POST', body: JSON.stringify({ input }) })).json()) as { runId: string })
      .runId;
  const events = async (runId: string) => ((await (await api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] }).events;
  const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startStack({
      reply: scriptedProvider as never,
      runnerEnv: {
        SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js',
        SPINDLE_MODEL_PRICES: '{"compatible:support":{"inputPerMTok":2,"outputPerMTok":8}}',
      },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    // Signed in for the whole suite: the key stays in this tab's sessionStorage.
    await page.goto(stack.gatewayUrl);
    await signInWithKey(page, stack.adminKey);
    await put('support-desk', {
      kind: 'graph',
      nodes: [
        { id: 'triage', type: 'set', values: { ticket: '{{input}}' } },
        {
          id: 'research',
          type: 'fork',
          branches: {
            orders: {
              nodes: [
                {
                  id: 'order_agent',
                  type: 'agent',
                  model: 'compatible:support',
                  prompt: 'Where is order A-1002? {{ticket}}',
                  tools: ['lookup_order'],
                  output_key: 'status',
                },
              ],
            },
            tone: {
              nodes: [
                {
                  id: 'tone',
                  type: 'llm',
                  model: 'compatible:support',
                  prompt: 'How upset is this customer? {{ticket}}',
                  output_key: 'tone',
                },
              ],
            },
          },
        },
        { id: 'reply', type: 'llm', model: 'compatible:support', prompt: 'Write the reply using {{research}}', output_key: 'reply' },
      ],
      edges: [
        { from: 'triage', to: 'research' },
        { from: 'research', to: 'reply' },
      ],
    });
    await put('guarded', {
      kind: 'graph',
      nodes: [{ id: 'refunds', type: 'agent', model: 'compatible:support', prompt: '{{input}}', tools: ['lookup_order'], approval: true }],
    });
    await put('refund-desk', {
      kind: 'handoff',
      agents: [
        { name: 'front_desk', model: 'compatible:support' },
        { name: 'billing', model: 'compatible:support' },
      ],
    });
    await put('refund-form', {
      kind: 'graph',
      nodes: [
        {
          id: 'amount',
          type: 'human',
          prompt: 'How much do we refund?',
          form: 'json',
          schema: {
            type: 'object',
            properties: { amount: { type: 'number', minimum: 0 } },
            required: ['amount'],
            additionalProperties: false,
          },
        },
      ],
    });
    await put('sign-off', { kind: 'graph', nodes: [{ id: 'sign_off', type: 'human', prompt: 'Sign off the release?', form: 'boolean' }] });
    await put('note', { kind: 'graph', nodes: [{ id: 'note', type: 'set', values: { noted: true } }] });
    await put('pricing', {
      kind: 'graph',
      nodes: [
        { id: 'base', type: 'set', values: { price: 10 } },
        { id: 'label', type: 'set', values: { label: 'price is {{price}}' } },
      ],
      edges: [{ from: 'base', to: 'label' }],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows a run live on its graph, then replays it from zero to the end without calling a model', async () => {
    const releaseModels = holdModelCalls();
    try {
      const runId = await start('support-desk', 'my parcel is late');
      await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
      // Live: both branches of the fork light up as running while their model calls are held.
      await page.locator('.flow-node[data-node-id="order_agent"][data-state="running"]').waitFor({ timeout: 20_000 });
      await page.locator('.flow-node[data-node-id="tone"][data-state="running"]').waitFor({ timeout: 20_000 });
      // The held node's elapsed label and the header's wall time tick on their own: no event arrives while the model is held.
      const elapsed = page.locator('.flow-node[data-node-id="tone"] [data-testid="node-elapsed"]');
      const wall = page.getByTestId('run-wall');
      const [firstElapsed, firstWall] = [await elapsed.innerText(), await wall.innerText()];
      expect(firstElapsed).toMatch(/^started .+ ago/);
      await page.waitForFunction(
        ([before, wallBefore]) =>
          document.querySelector('.flow-node[data-node-id="tone"] [data-testid="node-elapsed"]')?.textContent !== before &&
          document.querySelector('[data-testid="run-wall"]')?.textContent !== wallBefore,
        [firstElapsed, firstWall],
        { timeout: 20_000 },
      );
      await page.screenshot({ path: `${SHOTS}/run-live.png` });
    } finally {
      releaseModels();
    }
    await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await page.locator('.flow-node[data-node-id="reply"][data-state="completed"]').waitFor();
    // triage, the fork, its two branch nodes and the reply: every node of the graph.
    const states = await page
      .locator('.flow-node')
      .evaluateAll((nodes) => Object.fromEntries(nodes.map((n) => [n.getAttribute('data-node-id'), n.getAttribute('data-state')])));
    expect(states).toEqual({ triage: 'completed', research: 'completed', order_agent: 'completed', tone: 'completed', reply: 'completed' });

    // A failed-or-not tool call and the node's delta are in the span detail.
    await page.locator('.trow[data-span-kind="node"]', { hasText: 'order_agent' }).click();
    const detail = page.locator('[data-testid="span-detail"]');
    await pageShows(async () => expect(await detail.textContent()).toContain('output (state delta)'));
    await pageShows(async () => expect(await detail.locator('.tool-call').first().textContent()).toContain('lookup_order'));
    // What the tool's code said: the lookup's reported cost and its custom event, in the agent's detail.
    const said = detail.getByTestId('user-code-said');
    await pageShows(async () =>
      expect(await said.textContent()).toMatch(/spent \$0\.00010 1 lookups \(order service lookup\).*event order\.looked_up/),
    );

    // Replay: only the cursor moves; no model, tool or HTTP call.
    const calls = stack.fake.callCount;
    const apiRequests: string[] = [];
    page.on('request', (r) => r.url().includes('/v1/') && apiRequests.push(r.url()));
    await page.locator('[aria-label="jump to start"]').click();
    await page.locator('[data-testid="replay-banner"]').waitFor();
    await pageShows(async () => expect(await page.locator('.flow-node[data-state="completed"]').count()).toBe(0));
    await page.locator('[aria-label="step forward"]').click();
    await page.locator('[aria-label="step forward"]').click();
    expect(page.url()).toMatch(/\?at=\d+$/);
    await pageShows(async () =>
      expect(await page.locator('.flow-node[data-node-id="triage"]').getAttribute('data-state')).toBe('completed'),
    );
    expect(await page.locator('.flow-node[data-node-id="reply"]').getAttribute('data-state')).toBe('pending');
    // The run's own status does not roll back with the cursor.
    expect(await page.locator('[data-testid="run-status"]').textContent()).toBe('completed');
    await page.screenshot({ path: `${SHOTS}/run-replay.png` });
    // A link to this moment opens the same moment.
    const moment = page.url();
    const other = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await other.goto(moment);
    // A new tab has no session: it signs in first and stays on the link it was given.
    await signInWithKey(other, stack.adminKey);
    await other.locator('.flow-node[data-node-id="triage"][data-state="completed"]').waitFor();
    await pageShows(async () => expect(await other.locator('.flow-node[data-node-id="reply"]').getAttribute('data-state')).toBe('pending'));
    await other.close();
    for (let i = 0; i < 10; i++) await page.locator('[aria-label="step forward"]').click();
    await page.locator('.flow-node[data-node-id="reply"][data-state="completed"]').waitFor();
    expect(stack.fake.callCount).toBe(calls);
    expect(apiRequests).toEqual([]);
  });

  it('keeps a live view through a gateway restart: reconnecting, then caught up without an event lost or repeated', async () => {
    const releaseModels = holdModelCalls();
    const gateway = stack.processes.find((p) => p.name === 'gateway' && p.child.exitCode === null)!;
    let runId = '';
    try {
      runId = await start('support-desk', 'restart the gateway');
      await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
      await page.locator('.flow-node[data-node-id="tone"][data-state="running"]').waitFor({ timeout: 20_000 });
      const callsHeld = stack.fake.callCount;
      await stopProcess(gateway.child);
      await page.locator('[data-testid="stream-state"]', { hasText: 'reconnecting' }).waitFor({ timeout: 15_000 });
      // The run goes on while the gateway is away: its events land in the log, not in the page.
      releaseModels();
      await until(async () => stack.fake.callCount >= callsHeld + 2, 'the run to go on without the gateway');
    } finally {
      releaseModels();
    }
    await stack.startService('gateway', { PORT: String(gateway.port) });
    await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    const recorded = await events(runId);
    // Every event once: the cursor's range is exactly the log's length, and the graph is whole.
    await pageShows(async () => expect(await page.locator('[data-testid="cursor"]').getAttribute('max')).toBe(String(recorded.length)));
    const states = () => page.locator('.flow-node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-state')));
    await pageShows(async () => expect(new Set(await states())).toEqual(new Set(['completed'])));
  });

  it('answers a tool approval from the inbox, and cancels a waiting run from its page', async () => {
    const guarded = await start('guarded', 'refund A-1002');
    await until(async () => (await events(guarded)).some((e) => e.type === 'run.awaiting'), 'approval request');
    await page.goto(`${stack.gatewayUrl}/#/inbox`);
    const card = page.locator(`[data-kind="approval"]`).first();
    await card.waitFor();
    await pageShows(async () => expect(await card.textContent()).toContain('lookup_order'));
    // The card names its run by its whole id (not the id's tail), and how long it has waited in a human duration.
    const header = page.locator('.inbox article header', { has: page.locator(`a[href="#/runs/${guarded}"]`) });
    expect(await header.locator(`a[href="#/runs/${guarded}"]`).textContent()).toBe(`guarded run ${guarded}`);
    expect(await header.textContent()).toMatch(/ · waiting \d+(\.\d+)? (ms|s)(?!\d)/);
    await page.screenshot({ path: `${SHOTS}/inbox.png` });
    await card.getByRole('button', { name: 'Approve' }).click();
    await until(async () => (await events(guarded)).some((e) => e.type === 'run.completed'), 'completion after approval');
    expect((await events(guarded)).find((e) => e.type === 'tool.called')).toMatchObject({ data: { name: 'lookup_order' } });
    // The answer is recorded as the signed-in key's, not on behalf of anyone.
    const resolved = (await events(guarded)).find((e) => e.type === 'approval.resolved');
    expect(resolved?.data).toMatchObject({ answeredBy: { kind: 'key', name: 'bootstrap admin' } });
    expect(resolved?.data).not.toHaveProperty('answeredBy.onBehalfOf');

    const waiting = await start('sign-off');
    await until(async () => (await events(waiting)).some((e) => e.type === 'run.awaiting'), 'wait');
    await page.goto(`${stack.gatewayUrl}/#/runs/${waiting}`);
    await page.locator('.flow-node[data-node-id="sign_off"][data-state="waiting"]').waitFor();
    // The waiting node says for how long, and the label ticks as a running node's does.
    const waited = page.locator('.flow-node[data-node-id="sign_off"] [data-testid="node-elapsed"]');
    const firstWaited = await waited.innerText();
    expect(firstWaited).toMatch(/^waiting \d+(\.\d)? (ms|s)$/);
    await page.waitForFunction(
      (before) => document.querySelector('.flow-node[data-node-id="sign_off"] [data-testid="node-elapsed"]')?.textContent !== before,
      firstWaited,
      { timeout: 10_000 },
    );
    // Cancel asks first; keeping the run changes nothing.
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'Keep it running' }).click();
    expect((await events(waiting)).at(-1)?.type).toBe('run.awaiting');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByLabel('cancel reason').fill('released without sign-off');
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.locator('[data-testid="run-status"]', { hasText: 'canceled' }).waitFor({ timeout: 15_000 });
    expect((await events(waiting)).at(-1)).toMatchObject({
      type: 'run.canceled',
      data: { reason: expect.stringContaining('released without sign-off') },
    });
    // Drawn as canceled, with who and why: not as failed, not as still waiting.
    await page.locator('.flow-node[data-node-id="sign_off"][data-state="canceled"]').waitFor();
    await pageShows(async () =>
      expect(await page.locator('[data-testid="canceled-banner"]').textContent()).toMatch(
        /^Canceled by bootstrap admin: .*released without sign-off/,
      ),
    );
  });

  it("shows an agent's model call as a conversation: messages by role, the tool call and its result as blocks, the answer", async () => {
    const runId = await start('support-desk', 'Where is order A-1002?');
    await until(async () => (await events(runId)).at(-1)?.type === 'run.completed', 'the run to end');
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    const calls = page.locator('[data-span-kind="model"][data-node-id="order_agent"]');
    await until(async () => (await calls.count()) === 2, "both of the agent's model calls");
    await calls.nth(1).click();
    const conversation = page.getByTestId('conversation');
    await conversation.waitFor();
    // The question was sent in the first call: here it is an earlier message, folded away but present.
    const roles = () => conversation.locator('.message').evaluateAll((ms) => ms.map((m) => m.getAttribute('data-role')));
    await pageShows(async () => expect((await roles()).slice(-4)).toEqual(['user', 'assistant', 'tool', 'assistant']));
    expect(await conversation.locator('.earlier .message').textContent()).toContain('Where is order A-1002?');
    const call = conversation.getByTestId('tool-call-block');
    expect(await call.textContent()).toMatch(/tool call · lookup_order call_1/);
    expect(await call.textContent()).toContain('"orderId": "A-1002"');
    expect(await conversation.getByTestId('tool-result-block').textContent()).toMatch(/tool result · lookup_order call_1/);
    expect(await conversation.locator('.message.answer').textContent()).toContain('Order A-1002 shipped with DHL.');
    expect(await conversation.getByTestId('finish-reason').textContent()).toBe('stop');
    expect(await conversation.getByTestId('token-split').textContent()).toBe('60 input · 0 cached · 9 output · 0 reasoning');
    // The JSON folds.
    const key = call.locator('.json-key', { hasText: 'orderId' });
    expect(await key.isVisible()).toBe(true);
    await call.locator('summary').first().click();
    expect(await key.isVisible()).toBe(false);
    await call.locator('summary').first().click();
    expect(await key.isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/conversation.png` });
  });

  it('forks from the replay cursor with an edited state, opens the fork, and compares it with its parent', async () => {
    const parent = await start('pricing');
    await until(async () => (await events(parent)).at(-1)?.type === 'run.completed', 'the run to end');
    const afterBase = (await events(parent)).find((e) => e.type === 'checkpoint.saved')!.seq;
    await page.goto(`${stack.gatewayUrl}/#/runs/${parent}?at=${afterBase}`);
    await page.getByRole('button', { name: `Fork from event ${afterBase}` }).click();
    const editor = page.getByLabel('state for the fork');
    expect(JSON.parse(await editor.inputValue())).toMatchObject({ price: 10 });
    // Checked against the state as one types: a number stays a number.
    await editor.fill(JSON.stringify({ ...JSON.parse(await editor.inputValue()), price: 'ten' }));
    expect(await page.getByTestId('fork-problem').textContent()).toBe('price was a number; it cannot become a string');
    expect(await page.getByRole('button', { name: 'Fork run' }).isDisabled()).toBe(true);
    await editor.fill(JSON.stringify({ ...JSON.parse(await editor.inputValue()), price: 99 }));
    expect(await page.getByTestId('fork-changes').textContent()).toBe('changes: price');
    await page.getByRole('button', { name: 'Fork run' }).click();
    await page.waitForFunction((id) => location.hash.startsWith('#/runs/') && !location.hash.includes(id), parent);
    const child = decodeURIComponent(await page.evaluate(() => location.hash.slice('#/runs/'.length).split('?')[0]!));
    await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor({ timeout: 15_000 });
    const forked = await events(child);
    expect(forked[0]).toMatchObject({ type: 'run.queued', data: { forkedFrom: { runId: parent, seq: afterBase } } });
    expect(forked.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { label: 'price is 99' } } });

    // Compare with… offers the parent first.
    expect(await page.getByLabel('compare with run').inputValue()).toBe(parent);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const nodes = page.getByTestId('compare-nodes');
    await nodes.waitFor();
    const differs = (nodeId: string) => nodes.locator(`tr[data-node-id="${nodeId}"]`).getAttribute('data-differs');
    await pageShows(async () => expect(await differs('label')).toBe('true'));
    // The fork started after `base`: it never ran it, it inherited its result with the checkpoint.
    expect(await differs('base')).toBe('false');
    // This run (the fork) on the left, its parent on the right.
    expect(await nodes.locator('tr[data-node-id="base"] td').allTextContents()).toEqual([
      'inherited from parent',
      expect.stringMatching(/^completed · /),
    ]);
    expect(await nodes.textContent()).toContain('price is 99');
    expect(await page.getByTestId('compare-fork-of').textContent()).toContain(`fork of ${parent} at cp-1`);
    await page.screenshot({ path: `${SHOTS}/compare.png` });

    // Lineage: a fork of the fork, through the API; its page says where it came from and draws the tree.
    const forkAgain = await api(`/v1/runs/${child}/fork`, { method: 'POST', body: JSON.stringify({}) });
    expect(forkAgain.status).toBe(202);
    const grandchild = ((await forkAgain.json()) as { runId: string }).runId;
    await until(async () => (await events(grandchild)).at(-1)?.type === 'run.completed', 'the fork of the fork to end');
    await page.goto(`${stack.gatewayUrl}/#/runs/${child}`);
    const origin = page.getByTestId('fork-origin');
    await pageShows(async () =>
      expect(await origin.textContent()).toMatch(
        new RegExp(`^forked from ${parent} at cp-1 \\(event ${afterBase}\\) by bootstrap admin · compare with it$`),
      ),
    );
    const tree = page.getByTestId('fork-tree');
    await pageShows(async () =>
      expect(
        await tree.locator('li').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-run-id'), r.getAttribute('data-depth')])),
      ).toEqual([
        [parent, '0'],
        [child, '1'],
        [grandchild, '2'],
      ]),
    );
    expect(await tree.locator('li.current').getAttribute('data-run-id')).toBe(child);
    await page.screenshot({ path: `${SHOTS}/fork-lineage.png` });
    // The parent's own page has no origin line, and the same tree.
    await page.goto(`${stack.gatewayUrl}/#/runs/${parent}`);
    await pageShows(async () => expect(await page.getByTestId('fork-tree').locator('li').count()).toBe(3));
    expect(await page.getByTestId('fork-origin').count()).toBe(0);
    // The runs list names each fork's parent.
    await page.goto(`${stack.gatewayUrl}/#/runs`);
    const parentOf = (runId: string) => page.locator(`tr[data-run-id="${runId}"] [data-testid="run-parent"]`);
    await pageShows(async () => expect(await parentOf(grandchild).textContent()).toBe(child));
    expect(await parentOf(child).textContent()).toBe(parent);
    expect(await parentOf(parent).textContent()).toBe('');
    await page.screenshot({ path: `${SHOTS}/runs-parent.png` });
  });

  it('draws the overview dashboards from the projections: a few hundred runs, their failures and waiting requests', async () => {
    await put('order-check', {
      kind: 'graph',
      nodes: [
        { id: 'check', type: 'condition', expression: 'input.startsWith("FAIL")' },
        { id: 'reject', type: 'fail', code: 'node_failed', message: 'order {{input}} rejected' },
        { id: 'accept', type: 'set', values: { accepted: '{{input}}' } },
      ],
      edges: [
        { from: 'check', to: 'reject', handle: 'true' },
        { from: 'check', to: 'accept', handle: 'false' },
      ],
    });
    await put('review', { kind: 'graph', nodes: [{ id: 'review', type: 'human', prompt: 'Looks right?', form: 'boolean' }] });
    // 240 lookups, one in six of an order that fails; four reviews left waiting.
    const ids: string[] = [];
    for (let i = 0; i < 240; i++) ids.push(await start('order-check', i % 6 === 0 ? `FAIL-${i}` : 'A-1002'));
    for (let i = 0; i < 4; i++) ids.push(await start('review'));
    const overview = async (workflow: string) =>
      (await (await api(`/v1/overview?workflow=${workflow}&days=7`)).json()) as {
        totals: { runs: number; completed: number; failed: number };
        topErrors: Array<{ code: string; runs: number }>;
        pendingRequests: { buckets: Array<{ requests: number }> };
      };
    await until(async () => {
      const { totals } = await overview('order-check');
      return totals.completed + totals.failed === 240;
    }, 'every lookup to end and be projected');
    await until(async () => (await overview('review')).pendingRequests.buckets[0]?.requests === 4, 'the reviews to wait');
    const figures = await overview('order-check');
    expect(figures.totals).toMatchObject({ runs: 240, completed: 200, failed: 40 });
    expect(figures.topErrors).toEqual([{ code: 'node_failed', runs: 40 }]);

    await page.goto(`${stack.gatewayUrl}/#/overview?workflow=order-check&days=7`);
    const tile = (label: string) => page.locator(`.tile[data-label="${label}"] .tile-value`);
    await until(async () => (await tile('runs').textContent()) === '240', 'the tiles');
    expect(await tile('failed').textContent()).toBe('40');
    expect(await tile('succeeded').textContent()).toBe('83.3 %');
    await pageShows(async () => expect(await page.getByTestId('top-errors').textContent()).toContain('node_failed40 runs'));
    await pageShows(async () => expect(await page.getByTestId('slowest-nodes').textContent()).toContain('check'));
    // Today's bar is drawn, in both of its statuses (Recharts draws its bars after its own layout pass).
    await pageShows(async () => expect(await page.locator('.recharts-bar-rectangle').count()).toBeGreaterThanOrEqual(2));
    // An error code leads to its runs.
    await page.getByTestId('top-errors').getByRole('link').click();
    await page.waitForFunction(() => location.hash.startsWith('#/runs?') && location.hash.includes('errorCode='));
    await until(async () => (await page.locator('tr[data-run-id]').count()) === 40, 'the failed lookups listed');

    await page.goto(`${stack.gatewayUrl}/#/overview?days=7`);
    await page.locator('.tile[data-label="waiting for a person"] .tile-value').waitFor();
    await until(async () => Number((await tile('waiting for a person').textContent()) ?? 0) >= 4, 'the waiting reviews');
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });
    // Hovering the age chart's bar shows its tooltip but no grey hover band, which would read as one more bar.
    const ages = page.locator('.chart', { has: page.getByRole('heading', { name: 'Requests waiting for a person, by age' }) });
    await ages.locator('.recharts-bar-rectangle').first().hover();
    await pageShows(async () => expect(await ages.locator('.recharts-tooltip-wrapper').textContent()).toMatch(/requests\s*:\s*\d+/));
    expect(await ages.locator('.recharts-tooltip-cursor').count()).toBe(0);
  });

  it("shows the run's log as a filterable event table, kept in step with the replay cursor", async () => {
    const runId = await start('pricing');
    await until(async () => (await events(runId)).at(-1)?.type === 'run.completed', 'the run to end');
    const log = await events(runId);
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    await page.locator('.timeline-modes').getByRole('button', { name: 'events' }).click();
    const table = page.getByTestId('event-table');
    const seqs = () => table.locator('.erow-wrap').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
    await until(async () => (await seqs()).length === log.length, 'every event listed');
    // Filtered by a family of types, and by node.
    await table.getByLabel('event type').selectOption('node.');
    expect(await seqs()).toEqual(log.filter((e) => e.type.startsWith('node.')).map((e) => e.seq));
    await table.getByLabel('event node or path').fill('label');
    expect(await seqs()).toEqual(log.filter((e) => e.type.startsWith('node.') && e.nodeId === 'label').map((e) => e.seq));
    const completed = log.find((e) => e.type === 'node.completed' && e.nodeId === 'label')!;
    // A row opens to the whole event.
    await table.locator(`.erow-wrap[data-seq="${completed.seq}"] .erow`).click();
    expect(await table.locator('.event-json').textContent()).toContain('"price is 10"');
    // Its seq moves the replay cursor there; the cursor's row is marked, later ones dimmed.
    await table
      .locator(`.erow-wrap[data-seq="${completed.seq}"]`)
      .getByRole('button', { name: String(completed.seq) })
      .click();
    await page.waitForFunction((seq) => location.hash.endsWith(`at=${seq}`), completed.seq);
    await pageShows(async () => expect(await table.locator('.erow-wrap.at-cursor').getAttribute('data-seq')).toBe(String(completed.seq)));
    await table.getByLabel('event node or path').fill('');
    await table.getByLabel('event type').selectOption('');
    await pageShows(async () => expect(await table.locator('.erow-wrap.future').count()).toBe(log.length - completed.seq));
    // The cursor moved elsewhere (the replay's step back) moves the mark.
    await page.getByRole('button', { name: 'step back' }).click();
    await page.waitForFunction((seq) => !location.hash.endsWith(`at=${seq}`), completed.seq);
    const at = Number(await page.evaluate(() => new URLSearchParams(location.hash.split('?')[1]).get('at')));
    await pageShows(async () => expect(await table.locator('.erow-wrap.at-cursor').getAttribute('data-seq')).toBe(String(at)));
  });

  it('searches runs by words of their input, pages through them, and keeps the search in the URL', async () => {
    const names = ['Quokka one', 'Quokka two', 'Quokka three', 'Wombat'];
    const ids: string[] = [];
    for (const name of names) ids.push(await start('note', { animal: name }));
    const quokkas = ids.slice(0, 3).reverse();
    await until(async () => {
      const res = await api('/v1/runs?q=quokka&limit=5');
      return ((await res.json()) as { runs: unknown[] }).runs.length === 3;
    }, 'the trace projection to hold the runs');
    await page.goto(`${stack.gatewayUrl}/#/workflows`);
    // `/` opens the runs page with its search field focused.
    await page.keyboard.press('/');
    await page.locator('#search:focus').waitFor();
    await page.keyboard.type('quokka');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash.includes('q=quokka'));
    const shown = () => page.locator('tr[data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    await until(async () => JSON.stringify(await shown()) === JSON.stringify(quokkas), 'three quokka runs');
    // Sorted oldest first by the started column's header, then a page of one at a time through the URL's own cursor.
    await page.getByRole('button', { name: /^started/ }).click();
    await until(async () => JSON.stringify(await shown()) === JSON.stringify([...quokkas].reverse()), 'oldest first');
    await page.goto(`${stack.gatewayUrl}/#/runs?q=quokka`);
    const pageOf = async (expected: string[]) =>
      until(async () => JSON.stringify(await shown()) === JSON.stringify(expected), `${expected}`);
    await pageOf(quokkas);
    expect(await page.locator(`tr[data-run-id="${ids[3]}"]`).count()).toBe(0);
    await page.getByRole('button', { name: 'copy run id ' + quokkas[0] }).waitFor();
    await page.screenshot({ path: `${SHOTS}/runs-search.png` });
  });

  it('pages through the runs list with Older and Newer, fifty at a time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) ids.push(await start('note', { batch: 'paging-batch' }));
    await until(
      async () => ((await (await api('/v1/runs?q=paging&limit=60')).json()) as { runs: unknown[] }).runs.length === 52,
      'the trace projection to hold the runs',
    );
    await page.goto(`${stack.gatewayUrl}/#/runs?q=paging-batch`);
    const rows = page.locator('tr[data-run-id]');
    await until(async () => (await rows.count()) === 50, 'a first page of fifty');
    expect(await rows.first().getAttribute('data-run-id')).toBe(ids[51]);
    await page.getByRole('button', { name: 'Older →' }).click();
    await until(async () => (await rows.count()) === 2, 'a second page of two');
    expect(await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-run-id')))).toEqual([ids[1], ids[0]]);
    expect(await page.getByTestId('page-number').textContent()).toBe('page 2');
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await until(async () => (await rows.count()) === 50, 'the first page again');
    expect(await rows.first().getAttribute('data-run-id')).toBe(ids[51]);
  });

  it('shows a clear not-found page for an unknown run and an unknown page', async () => {
    await page.goto(`${stack.gatewayUrl}/#/runs/01NOSUCHRUN0000000000000000`);
    await page.getByTestId('not-found').waitFor();
    expect(await page.getByTestId('not-found').textContent()).toContain('No run 01NOSUCHRUN0000000000000000 here.');
    expect(await page.getByTestId('run-status').count()).toBe(0);
    await page.goto(`${stack.gatewayUrl}/#/nowhere/at/all`);
    // The run's not-found page is still drawn until the router has moved on: wait for the new one.
    await pageShows(async () =>
      expect(await page.getByTestId('not-found').textContent()).toContain('There is no page at #/nowhere/at/all.'),
    );
  });

  it('follows the system colour scheme, and keeps a theme picked with the toggle', async () => {
    const dark = await browser.newPage({ colorScheme: 'dark', viewport: { width: 1280, height: 800 } });
    try {
      await dark.goto(stack.gatewayUrl);
      const theme = () => dark.evaluate(() => document.documentElement.dataset.theme);
      const background = () => dark.evaluate(() => getComputedStyle(document.body.parentElement!).backgroundColor);
      expect(await theme()).toBe('dark');
      expect(await background()).toBe('rgb(17, 20, 25)');
      await dark.emulateMedia({ colorScheme: 'light' });
      await dark.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      expect(await background()).toBe('rgb(245, 246, 248)');
      // system → dark → light → system; a choice outlives a reload and the system's preference.
      await dark.getByTestId('theme-toggle').click();
      expect(await theme()).toBe('dark');
      await dark.reload();
      expect(await theme()).toBe('dark');
      await dark.getByTestId('theme-toggle').click();
      await dark.emulateMedia({ colorScheme: 'dark' });
      expect(await theme()).toBe('light');
      await dark.getByTestId('theme-toggle').click();
      expect(await theme()).toBe('dark');
    } finally {
      await dark.close();
    }
  });

  it('stays usable at 820 px: no page scrolls sideways, no table hides a column, the top bar keeps one line', async () => {
    const runId = await start('support-desk', 'narrow screens');
    await until(async () => (await events(runId)).at(-1)?.type === 'run.completed', 'the run to end');
    // A fork and a failure: what the runs list's parent and error columns say must still show when they are stacked.
    const fork = ((await (await api(`/v1/runs/${runId}/fork`, { method: 'POST', body: '{}' })).json()) as { runId: string }).runId;
    await until(async () => (await events(fork)).at(-1)?.type === 'run.completed', 'the fork to end');
    await put('narrow-refusal', { kind: 'graph', nodes: [{ id: 'no', type: 'fail', code: 'node_failed', message: 'refused' }] });
    const failed = await start('narrow-refusal');
    await until(async () => (await events(failed)).at(-1)?.type === 'run.failed', 'the refusal to fail');
    const narrow = await browser.newPage({ viewport: { width: 820, height: 900 } });
    /** What sticks out past the window, and the header cells a table hides behind its own scroll (or the window's edge). */
    const layout = () =>
      narrow.evaluate(() => {
        const describe = (el: Element) => `${el.tagName.toLowerCase()}.${el.className}: ${el.textContent?.slice(0, 60)}`;
        const clipped = (el: Element): boolean => {
          for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
            if (getComputedStyle(up).overflowX !== 'visible') return true;
          return false;
        };
        // Innermost first: a failure names what to fix.
        const outside = [...document.querySelectorAll('body *')].filter(
          (el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !clipped(el),
        );
        const innermost = outside.filter((el) => !outside.some((other) => other !== el && el.contains(other)));
        // A column is in view when its header lies inside the window and inside every box that clips it: a table that
        // scrolls sideways within its panel hides its last columns just as surely as a page that does.
        const hiddenColumns = [...document.querySelectorAll('table th')].filter((th) => {
          const cell = th.getBoundingClientRect();
          if (getComputedStyle(th).display === 'none' || cell.width === 0) return false;
          let right = window.innerWidth;
          for (let up = th.parentElement; up && up !== document.body; up = up.parentElement)
            if (getComputedStyle(up).overflowX !== 'visible') right = Math.min(right, up.getBoundingClientRect().right);
          return cell.right > right + 1;
        });
        return {
          page: document.documentElement.scrollWidth,
          outside: innermost.slice(0, 5).map(describe),
          hiddenColumns: hiddenColumns.map((th) => `${th.closest('table')?.className} th: ${th.textContent}`),
          topbar: document.querySelector('.topbar')!.getBoundingClientRect().height,
        };
      });
    try {
      await narrow.goto(stack.gatewayUrl);
      await signInWithKey(narrow, stack.adminKey);
      for (const [hash, ready] of [
        ['#/runs', `tr[data-run-id="${fork}"]`],
        ['#/overview', '.tile'],
        ['#/workflows/support-desk', '.flow-node'],
        [`#/runs/${runId}`, '.flow-node[data-state="completed"]'],
        ['#/inbox', 'main'],
      ] as const) {
        await narrow.goto(`${stack.gatewayUrl}/${hash}`);
        await narrow.locator(ready).first().waitFor();
        const widths = await layout();
        expect({ hash, ...widths }).toEqual({ hash, page: 820, outside: [], hiddenColumns: [], topbar: expect.any(Number) });
        expect(widths.topbar).toBeLessThan(48);
      }
      // The runs list keeps what its dropped columns say: the fork's parent under its id, the failure's code under its status.
      await narrow.goto(`${stack.gatewayUrl}/#/runs`);
      const parent = narrow.locator(`tr[data-run-id="${fork}"] [data-testid="run-parent-stacked"]`);
      await pageShows(async () => expect(await parent.textContent()).toBe(`from ${runId}`));
      expect(await parent.isVisible()).toBe(true);
      const code = narrow.locator(`tr[data-run-id="${failed}"] [data-testid="run-error-stacked"]`);
      expect(await code.textContent()).toBe('node_failed');
      expect(await code.isVisible()).toBe(true);
      await narrow.screenshot({ path: `${SHOTS}/runs-820px.png` });
      // On a laptop's 1280 px every column of the list is in view too.
      await narrow.setViewportSize({ width: 1280, height: 900 });
      await pageShows(async () => expect(await parent.isVisible()).toBe(true));
      expect({ ...(await layout()), topbar: 0 }).toEqual({ page: 1280, outside: [], hiddenColumns: [], topbar: 0 });
    } finally {
      await narrow.close();
    }
  });

  it('shows beside a workflow the functions and tools the live runners have, the ones it uses first', async () => {
    await page.goto(`${stack.gatewayUrl}/#/workflows/support-desk`);
    const panel = page.locator('[data-testid="runner-capabilities"]');
    await panel.locator('tbody tr').first().waitFor();
    const first = await panel.locator('tbody tr').first().innerText();
    expect(first).toMatch(/tool\s+lookup_order\s+order-lookup@[\d.]+\s+runner-\d+\s+nodes\[1\]\.branches\.orders\.nodes\[0\]\.tools\[0\]/);
    expect(await panel.innerText()).toContain('word_count');
    expect(await panel.locator('.error').count()).toBe(0);
  });

  it('answers its keyboard shortcuts: help, go to, and stepping the replay', async () => {
    const runId = await start('support-desk', 'Where is my order?');
    await until(async () => (await events(runId)).at(-1)?.type === 'run.completed', 'the run to end');
    await page.goto(`${stack.gatewayUrl}/#/workflows`);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await page.waitForFunction(() => location.hash === '#/inbox');
    await page.keyboard.press('g');
    await page.keyboard.press('r');
    await page.waitForFunction(() => location.hash === '#/runs');
    // The help is about the page it was opened on: going elsewhere (a shortcut, the browser's back) closes it, so it
    // never stays over the next page blocking its clicks.
    const help = page.getByRole('dialog', { name: 'keyboard shortcuts' });
    await page.keyboard.press('?');
    await help.waitFor();
    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await page.waitForFunction(() => location.hash === '#/inbox');
    await pageShows(async () => expect(await help.count()).toBe(0));
    await page.keyboard.press('?');
    await help.waitFor();
    await page.goBack();
    await page.waitForFunction(() => location.hash === '#/runs');
    await pageShows(async () => expect(await help.count()).toBe(0));
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.waitForFunction(() => location.hash === '#/inbox');

    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}?at=0`);
    await page.locator('[data-testid="cursor"]').waitFor();
    const at = () => page.evaluate(() => new URLSearchParams(location.hash.split('?')[1]).get('at'));
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => !location.hash.endsWith('at=0'));
    const first = Number(await at());
    expect(first).toBeGreaterThan(0);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((n) => Number(new URLSearchParams(location.hash.split('?')[1]).get('at')) > n, first);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((n) => new URLSearchParams(location.hash.split('?')[1]).get('at') === String(n), first);
    // Space plays the replay from there, and pauses it.
    await page.keyboard.press(' ');
    await page.getByRole('button', { name: 'pause' }).waitFor();
    await page.waitForFunction((n) => Number(new URLSearchParams(location.hash.split('?')[1]).get('at')) > n, first);
    await page.keyboard.press(' ');
    await page.getByRole('button', { name: 'play' }).waitFor();
    // Typing in a field is typing, not a shortcut.
    await page.goto(`${stack.gatewayUrl}/#/runs`);
    await page.getByLabel('filter by workflow').fill('g');
    await page.getByLabel('filter by workflow').press('r');
    await pageShows(async () => expect(await page.evaluate(() => location.hash)).toContain('workflow=gr'));
  });

  it('asks a JSON answer with a form made from its schema, checks it before sending, and confirms it was sent', async () => {
    const runId = await start('refund-form');
    await until(async () => (await events(runId)).some((e) => e.type === 'run.awaiting'), 'the form');
    await page.goto(`${stack.gatewayUrl}/#/inbox`);
    const card = page.locator(`[data-kind="json"]`).first();
    await card.waitFor();
    // The form, made from the schema: its field checked as typed.
    const amount = card.getByLabel('amount');
    await amount.fill('-5');
    await pageShows(async () =>
      expect(await card.locator('[data-testid="data-problems"]').textContent()).toContain('data.amount: must be >= 0'),
    );
    expect(await card.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    // The raw editor holds the same answer, and stays available.
    await card.getByRole('button', { name: 'JSON' }).click();
    const field = card.getByLabel('answer data');
    expect(JSON.parse(await field.inputValue())).toEqual({ amount: -5 });
    await field.fill('{"amount": 12.5}');
    expect(await card.locator('[data-testid="data-problems"]').count()).toBe(0);
    await card.getByRole('button', { name: 'form' }).click();
    expect(await card.getByLabel('amount').inputValue()).toBe('12.5');
    await card.getByRole('button', { name: 'Send' }).click();
    // Confirmed before it goes: what was sent, and that the run goes on.
    const note = page.getByTestId('answered-note');
    await note.waitFor();
    expect(await note.textContent()).toContain('You answered {"amount":12.5} for refund-form · node amount');
    await until(async () => (await events(runId)).some((e) => e.type === 'run.completed'), 'completion after the answer');
    expect((await events(runId)).find((e) => e.type === 'input.answered')).toMatchObject({ data: { answer: { data: { amount: 12.5 } } } });
    // The inbox learns of the answer on its next refresh.
    await pageShows(async () => expect(await page.locator(`[data-kind="json"][data-request-id]`).count()).toBe(0));
    await note.getByRole('button', { name: 'dismiss' }).click();
    expect(await page.getByTestId('answered-note').count()).toBe(0);
  });

  it('draws a lane per agent and the handoff between them as an edge', async () => {
    const runId = await start('refund-desk', 'I want my money back for A-1002');
    await until(async () => (await events(runId)).some((e) => e.type === 'run.completed'), 'the handoff run');
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
    await page.getByRole('button', { name: 'lanes' }).click();
    const lanes = page.locator('[data-testid="swimlanes"] .lane-row');
    await lanes.first().waitFor();
    await pageShows(async () =>
      expect(await lanes.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-lane')))).toEqual([
        'top',
        'agent:front_desk',
        'agent:billing',
      ]),
    );
    // On a time axis, the run's own nodes first, each bar named when there is room (known once the lanes are measured).
    await pageShows(async () => expect(await page.getByTestId('lane-axis').locator('.lane-tick').first().textContent()).toBe('0 ms'));
    await pageShows(async () =>
      expect(await page.locator('.lane-row[data-lane="top"] .lane-bar-label').allTextContents()).toContain('handoff-loop'),
    );
    const edge = page.locator('.handoff-edge');
    await pageShows(async () => expect(await edge.count()).toBe(1));
    expect(await edge.getAttribute('data-from-lane')).toBe('agent:front_desk');
    expect(await edge.getAttribute('data-to-lane')).toBe('agent:billing');
    await expect(edge.locator('title').textContent()).resolves.toContain('customer wants a refund');
    await page.screenshot({ path: `${SHOTS}/run-lanes.png` });
    // Back to the start of the replay: nobody has handed off yet, so no edge is drawn.
    await page.locator('[aria-label="jump to start"]').click();
    await page.locator('[data-testid="replay-banner"]').waitFor();
    await pageShows(async () => expect(await page.locator('.handoff-edge').count()).toBe(0));
  });

  it('draws a pattern as its agents and who can hand off to whom, with the compiled nodes on demand', async () => {
    const runId = await start('refund-desk', 'A refund for A-1002, please');
    await until(async () => (await events(runId)).some((e) => e.type === 'run.completed'), 'the handoff run');
    await page.goto(`${stack.gatewayUrl}/#/workflows/refund-desk`);
    const node = (id: string) => page.locator(`.flow-node[data-node-id="${id}"]`);
    await node('front_desk').waitFor();
    await pageShows(async () =>
      expect(await page.locator('.flow-node').evaluateAll((ns) => ns.map((n) => n.getAttribute('data-node-id')))).toEqual([
        'input',
        'front_desk',
        'billing',
        'output',
      ]),
    );
    // React Flow paints the edges' labels only once it has measured the nodes: after the nodes are there.
    await pageShows(async () =>
      expect(await page.locator('.react-flow__edge-text').allTextContents()).toEqual(
        expect.arrayContaining(['first turn', 'hands off', 'answers']),
      ),
    );
    await page.getByRole('button', { name: 'compiled nodes' }).click();
    await node('handoff-loop').waitFor();
    await pageShows(async () => expect(await node('input').count()).toBe(0));
    expect(await node('front_desk').count()).toBe(1);
    // On the run's page the agents are lit by the run's events.
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}`);
    await page.locator('.flow-node[data-node-id="billing"][data-state="completed"]').waitFor();
    await pageShows(async () => expect(await node('front_desk').getAttribute('data-state')).toBe('completed'));
    await page.screenshot({ path: `${SHOTS}/pattern-agents.png` });
  });

  it('compares two versions of a workflow, and rolls back to the older one', async () => {
    await put('versioned', { kind: 'graph', nodes: [{ id: 'greet', type: 'set', values: { tone: 'formal' } }] });
    const v2 = { kind: 'graph', nodes: [{ id: 'greet', type: 'set', values: { tone: 'casual' } }] };
    expect((await api('/v1/workflows/versioned', { method: 'PUT', body: JSON.stringify(v2) })).status).toBe(201);
    await page.goto(`${stack.gatewayUrl}/#/workflows/versioned`);
    await page.getByLabel('compare with').selectOption('1');
    const diff = page.locator('[data-testid="version-diff"]');
    await diff.waitFor();
    await pageShows(async () => expect(await diff.locator('h3').textContent()).toContain('v1 → v2'));
    await pageShows(async () => expect(await diff.textContent()).toContain('changed: greet'));
    expect(await diff.locator('.removed').allTextContents()).toContain('-        "tone": "formal"\n');
    expect(await diff.locator('.added').allTextContents()).toContain('+        "tone": "casual"\n');
    await page.screenshot({ path: `${SHOTS}/version-diff.png` });
    await diff.getByRole('button', { name: 'Roll back to v1' }).click();
    await until(async () => ((await (await api('/v1/workflows/versioned')).json()) as { version: number }).version === 3, 'the rollback');
    expect(((await (await api('/v1/workflows/versioned')).json()) as { definition: unknown }).definition).toEqual({
      kind: 'graph',
      nodes: [{ id: 'greet', type: 'set', values: { tone: 'formal' } }],
    });
    await page.locator('select[aria-label="version"] option', { hasText: 'latest (v3)' }).waitFor({ state: 'attached' });
  });

  it('scrubs a 10,000-event run: every position shows that prefix of the log (its timing is in npm run bench)', async () => {
    await put('long-loop', longLoopWorkflow());
    const runId = await start('long-loop');
    await until(async () => (await events(runId)).some((e) => e.type === 'run.completed'), 'the long run', 120_000);
    const total = (await events(runId)).length;
    expect(total).toBeGreaterThanOrEqual(10_000);
    await page.goto(`${stack.gatewayUrl}/#/runs/${runId}?at=${Math.floor(total / 2)}`);
    await page.locator('.flow-node[data-node-id="rounds"]').waitFor();
    const slider = page.locator('[data-testid="cursor"]');
    for (const at of [Math.floor(total / 16), Math.floor((total * 15) / 16), 1]) {
      await slider.fill(String(at));
      await page.waitForFunction((n) => location.hash.endsWith(`at=${n}`), at);
      await pageShows(async () => expect(await page.getByTestId('replay-banner').textContent()).toContain(`event ${at} of ${total}`));
      expect(Number(await slider.inputValue())).toBe(at);
    }
  });
});
