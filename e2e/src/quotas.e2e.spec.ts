import type { RunEvent } from '@spindle/contracts';
import { eventually, startStack, type Stack, readsControlPlaneSettings } from '@spindle/testing';

/** A model call waits here while a test holds it, so a run is running because the test made it so. */
let held: Promise<void> = Promise.resolve();
function holdModelCalls(): () => void {
  let release!: () => void;
  held = new Promise((resolve) => (release = resolve));
  return release;
}

const WINDOW = 4;
const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
const asksTheModel = { kind: 'graph', nodes: [{ id: 'ask', type: 'llm', model: 'compatible:m', prompt: 'hi' }] };

/** Quotas per tenant: fair admission to the runners, starts per minute, a daily token budget, the queue position. */
describe('quotas', () => {
  let stack: Stack;
  const keys: Record<string, string> = {};
  const as =
    (tenant: string) =>
    (path: string, init: RequestInit = {}) =>
      fetch(`${stack.gatewayUrl}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${tenant === 'default' ? stack.adminKey : keys[tenant]}`,
          ...(init.method && init.method !== 'GET' && { 'content-type': 'application/json' }),
        },
      });
  const start = async (tenant: string, workflow: string) => {
    const res = await as(tenant)(`/v1/workflows/${workflow}/runs`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(202);
    return ((await res.json()) as { runId: string }).runId;
  };
  const status = async (tenant: string, runId: string) => (await (await as(tenant)(`/v1/runs/${runId}`)).json()) as Record<string, unknown>;
  const setQuotas = async (tenant: string, quotas: Record<string, number | null>) => {
    const body = { maxRunning: null, startsPerMinute: null, dailyTokenBudget: null, dailyCostBudgetUsd: null, ...quotas };
    expect((await as('default')(`/v1/tenants/${tenant}/quotas`, { method: 'PUT', body: JSON.stringify(body) })).status).toBe(200);
  };

  beforeAll(async () => {
    stack = await startStack({
      // The fake provider takes async replies (see console.e2e.spec.ts).
      reply: (async () => {
        await held;
        return { text: 'ok', usage: { prompt_tokens: 30, completion_tokens: 10 } };
      }) as never,
      runnerEnv: { RUNNER_CONCURRENCY: '4' },
      // Tenant quotas are read through a short cache; the admission's window is small so fairness shows.
      serviceEnv: (s): Record<string, string> => (readsControlPlaneSettings(s) ? { SPINDLE_DISPATCH_WINDOW: String(WINDOW) } : {}),
    });
    for (const tenant of ['acme', 'globex', 'initech']) {
      expect((await stack.api('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: tenant, name: tenant }) })).status).toBe(201);
      const made = await stack.api('/v1/keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'ci', scopes: ['runs:read', 'runs:write', 'workflows:write'], tenant }),
      });
      keys[tenant] = ((await made.json()) as { key: string }).key;
    }
    for (const tenant of ['default', 'acme', 'globex', 'initech']) {
      for (const [name, definition] of [
        ['quick', quick],
        ['model', asksTheModel],
      ] as const) {
        expect((await as(tenant)(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
      }
    }
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("starts another tenant's runs within a bounded number of a backlog of 200", async () => {
    const backlog: string[] = [];
    for (let batch = 0; batch < 10; batch++)
      backlog.push(...(await Promise.all(Array.from({ length: 20 }, () => start('default', 'quick')))));
    const late: string[] = [];
    for (let i = 0; i < 5; i++) late.push(await start('acme', 'quick'));
    await eventually(async () => {
      for (const runId of late) expect((await status('acme', runId)).status).toBe('completed');
    }, 250);

    // The order in which runs started is the order of their run.started in the events stream.
    const order = await startedInStreamOrder(stack, new Set([...backlog, ...late]));
    const queuedAt = await queuedInStreamOrder(stack, new Set(late));
    const aheadOfEach = late.map((runId) => {
      const startedAt = order.findIndex((s) => s.runId === runId);
      return order.slice(0, startedAt).filter((s) => s.streamSeq > queuedAt.get(runId)! && !late.includes(s.runId)).length;
    });
    // With the runners' queue in front of everyone, the last of them would start after nearly all 200.
    for (const [i, ahead] of aheadOfEach.entries())
      expect({ run: i, ahead, within: ahead <= WINDOW + i + 1 }).toMatchObject({ within: true });
    console.log(`fairness: backlog runs started ahead of each late run: ${JSON.stringify(aheadOfEach)} (bound ${WINDOW} + its place)`);
  });

  it('says where a queued run stands and why, and runs it when the tenant has room', async () => {
    await setQuotas('globex', { maxRunning: 1 });
    const release = holdModelCalls();
    const first = await start('globex', 'model');
    await eventually(async () => expect((await status('globex', first)).status).toBe('running'), 100);
    const second = await start('globex', 'model');
    const third = await start('globex', 'model');
    expect(await status('globex', second)).toMatchObject({ status: 'queued', queue: { position: 1, reason: 'tenant_limit' } });
    expect(await status('globex', third)).toMatchObject({ status: 'queued', queue: { position: 2, reason: 'tenant_limit' } });
    release();
    await eventually(async () => {
      for (const runId of [first, second, third]) expect((await status('globex', runId)).status).toBe('completed');
    }, 200);
    expect(await status('globex', third)).not.toHaveProperty('queue');
  });

  it('refuses starts over the per-minute rate with 429 and Retry-After, and starts past the daily token budget', async () => {
    await setQuotas('initech', { startsPerMinute: 2 });
    await start('initech', 'model');
    const second = await start('initech', 'model');
    const limited = await as('initech')('/v1/workflows/quick/runs', { method: 'POST', body: '{}' });
    expect({ status: limited.status, retryAfter: Number(limited.headers.get('retry-after')) > 0 }).toEqual({
      status: 429,
      retryAfter: true,
    });
    expect(await limited.json()).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('2 runs a minute') });

    // 40 tokens a run: with a budget of 50, the day's second run is the last.
    await eventually(async () => expect((await status('initech', second)).status).toBe('completed'), 100);
    await setQuotas('initech', { dailyTokenBudget: 50 });
    await eventually(async () => {
      const over = await as('initech')('/v1/workflows/quick/runs', { method: 'POST', body: '{}' });
      expect({ status: over.status, retryAfter: Number(over.headers.get('retry-after')) > 0 }).toEqual({ status: 429, retryAfter: true });
      expect(await over.json()).toMatchObject({ code: 'quota_exceeded', detail: expect.stringContaining('50 tokens') });
    }, 200);
    // Another tenant is not affected.
    expect(await start('acme', 'quick')).toMatch(/^[0-9A-Z]{26}$/);
  });
});

async function streamMessages(stack: Stack, keep: (event: RunEvent) => boolean): Promise<Array<{ event: RunEvent; streamSeq: number }>> {
  const { js, names } = stack.bus;
  const consumer = await js.consumers.get(names.eventsStream, { filter_subjects: names.eventsWildcard });
  const found: Array<{ event: RunEvent; streamSeq: number }> = [];
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 500, expires: 1_000 });
    let last: number | undefined;
    for await (const msg of batch) {
      const event = JSON.parse(new TextDecoder().decode(msg.data)) as RunEvent;
      if (keep(event)) found.push({ event, streamSeq: msg.seq });
      last = msg.info.pending;
    }
    if (last === undefined || last === 0) return found;
  }
}

async function startedInStreamOrder(stack: Stack, runs: Set<string>) {
  const started = await streamMessages(stack, (e) => e.type === 'run.started' && runs.has(e.runId));
  return started.map(({ event, streamSeq }) => ({ runId: event.runId, streamSeq }));
}

async function queuedInStreamOrder(stack: Stack, runs: Set<string>) {
  const queued = await streamMessages(stack, (e) => e.type === 'run.queued' && runs.has(e.runId));
  return new Map(queued.map(({ event, streamSeq }) => [event.runId, streamSeq]));
}
