import type { Schedule, ScheduleFiring, ThreadRunAccepted, ThreadRuns } from '@spindle/contracts';
import { eventually, startStack, type Stack } from '@spindle/testing';

const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };

/**
 * A start the tenant's start rate refuses (`rate_limited`, retryable) is tried again later, never
 * failed for good: neither a schedule's firing nor a thread's queued run.
 */
describe('starts that meet the start rate', () => {
  let stack: Stack;
  const post = async <T>(path: string, body: unknown) => {
    const res = await stack.api(path, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as T };
  };
  const setStartsPerMinute = async (startsPerMinute: number) => {
    const quotas = { maxRunning: null, startsPerMinute, dailyTokenBudget: null, dailyCostBudgetUsd: null };
    expect((await stack.api('/v1/tenants/default/quotas', { method: 'PUT', body: JSON.stringify(quotas) })).status).toBe(200);
  };
  /** One start a minute, and that one taken: every start until the rate is raised is refused. */
  const refuseStarts = async () => {
    await setStartsPerMinute(1);
    for (let i = 0; i < 3; i++) {
      const res = await stack.api('/v1/workflows/quick/runs', { method: 'POST', body: '{}' });
      if (res.status === 429) return expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
      expect(res.status).toBe(202);
    }
    throw new Error('the start rate never refused a start');
  };

  beforeAll(async () => {
    stack = await startStack({
      serviceEnv: (name): Record<string, string> => (name === 'gateway' ? { SPINDLE_SCHEDULE_MIN_INTERVAL_MS: '1000' } : {}),
    });
    expect((await stack.api('/v1/workflows/quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps a schedule's firings pending while the start rate refuses them, and starts one once starts are allowed", async () => {
    await refuseStarts();
    const made = await post<Schedule>('/v1/schedules', { cron: '* * * * * *', workflow: 'quick', overlap: 'skip', catchUp: 'all' });
    expect(made.status).toBe(201);
    const id = made.body.scheduleId;
    const firings = async () => ((await (await stack.api(`/v1/schedules/${id}/firings`)).json()) as { firings: ScheduleFiring[] }).firings;
    // Several passes have met the rate: the firings wait, none failed.
    await eventually(
      async () => {
        const all = await firings();
        expect(all.filter((f) => f.outcome === 'failed')).toEqual([]);
        expect(all.filter((f) => f.outcome === 'pending').length).toBeGreaterThanOrEqual(3);
      },
      200,
      100,
    );
    await setStartsPerMinute(600);
    await eventually(async () => expect((await firings()).some((f) => f.outcome === 'started')).toBe(true), 200, 100);
    expect((await firings()).filter((f) => f.outcome === 'failed')).toEqual([]);
    expect((await stack.api(`/v1/schedules/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
  });

  it("keeps a thread's run pending while the start rate refuses it, and starts it once starts are allowed", async () => {
    const threadId = (await post<{ threadId: string }>('/v1/threads', {})).body.threadId;
    await refuseStarts();
    const accepted = await post<ThreadRunAccepted>(`/v1/threads/${threadId}/runs`, { workflow: 'quick' });
    expect(accepted).toMatchObject({ status: 202, body: { status: 'pending' } });
    const statuses = async () => ((await (await stack.api(`/v1/threads/${threadId}/runs`)).json()) as ThreadRuns).runs.map((r) => r.status);
    expect(await statuses()).toEqual(['pending']);
    await setStartsPerMinute(600);
    await eventually(async () => expect(await statuses()).toEqual(['completed']), 200, 100);
  });
});
