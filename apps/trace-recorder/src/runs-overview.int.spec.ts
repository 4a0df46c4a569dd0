import type { RunEvent } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import { runsOverview } from './runs-overview.query';
import { ScoreRepository } from './score.repository';
import { TraceProjection } from './trace.projection';
import { completedRun, failedRun, logged, openTraceSchema, usage } from './trace-test.fixture';

describe("the overview's figures of a tenant's runs, against Postgres", () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  const projection = new TraceProjection('trace-recorder');
  const asTenant = (tenant: string, items: ReadonlyArray<{ event: RunEvent }>) =>
    items.map(({ event }) => (event.type === 'run.queued' ? { ...event, data: { ...event.data, tenant } } : event));

  beforeAll(async () => {
    store = await openTraceSchema(testNamespace());
    const events = [
      ...asTenant('acme', logged('a1', completedRun('support', { ...usage(10, 5), costUsd: 0.5 }), { start: '2025-03-01T10:00:00.000Z' })),
      ...asTenant('acme', logged('a2', completedRun('support', { ...usage(1, 1), costUsd: 0.25 }), { start: '2025-03-02T10:00:00.000Z' })),
      ...asTenant('acme', logged('a3', failedRun('orders'), { start: '2025-03-02T11:00:00.000Z' })),
      ...asTenant('acme', logged('a4', completedRun('support').slice(0, 2), { start: '2025-03-02T12:00:00.000Z' })),
      ...asTenant('globex', logged('g1', failedRun('orders'), { start: '2025-03-02T10:00:00.000Z' })),
      // An internal run (a thread's state change) is counted nowhere: not in the runs, their days or their nodes.
      ...asTenant('acme', logged('a5', completedRun('_thread_state'), { start: '2025-03-02T13:00:00.000Z' })),
    ];
    await store.db.transaction().execute((trx) => projection.apply(trx, events));
  });
  afterAll(() => store.drop());

  it('sums each UTC day and the window, for the tenant only, days without runs included', async () => {
    const overview = await runsOverview(store.db, { tenant: 'acme', from: '2025-02-28T00:00:00.000Z' });
    expect(overview.totals).toEqual({
      runs: 4,
      completed: 2,
      failed: 1,
      canceled: 0,
      active: 1,
      totalTokens: 17,
      costUsd: 0.75,
      // Wall time (libs/contracts durations): run.queued to run.completed, six seconds.
      p50DurationMs: 6_000,
      p95DurationMs: 6_000,
    });
    expect(overview.daily.slice(0, 3)).toEqual([
      expect.objectContaining({ day: '2025-02-28', completed: 0, failed: 0, active: 0, totalTokens: 0, p50DurationMs: null }),
      expect.objectContaining({ day: '2025-03-01', completed: 1, failed: 0, totalTokens: 15, costUsd: 0.5 }),
      expect.objectContaining({ day: '2025-03-02', completed: 1, failed: 1, active: 1, totalTokens: 2, costUsd: 0.25 }),
    ]);
    // Every day up to today is there, in order.
    expect(overview.daily.at(-1)?.day).toBe(new Date().toISOString().slice(0, 10));
    expect(overview.topErrors).toEqual([{ code: 'function_failed', runs: 1 }]);
    expect(overview.slowestNodes.map((n) => [n.workflow, n.nodeId, n.executions])).toEqual([
      ['support', 'reply', 2],
      ['orders', 'lookup', 1],
    ]);
  });

  it("narrows to one workflow and to the window's start", async () => {
    const orders = await runsOverview(store.db, { tenant: 'acme', workflow: 'orders', from: '2025-03-02T00:00:00.000Z' });
    expect(orders.totals).toMatchObject({ runs: 1, failed: 1, completed: 0 });
    expect(orders.slowestNodes.map((n) => n.nodeId)).toEqual(['lookup']);
    const later = await runsOverview(store.db, { tenant: 'acme', from: '2025-03-02T00:00:00.000Z' });
    expect(later.totals.runs).toBe(3);
    expect(later.daily[0]?.day).toBe('2025-03-02');
  });

  it("follows each score by the day of its runs and their workflow version, the tenant's own only", async () => {
    const scores = new ScoreRepository(store.db);
    const give = (tenant: string, runId: string, scoreId: string, name: string, value: number | boolean | string) =>
      scores.record({
        tenant,
        runId,
        score: {
          scoreId,
          spanId: null,
          name,
          value,
          comment: null,
          by: { kind: 'key', id: 'k1', name: 'ci' },
          evaluator: null,
          createdAt: '2025-03-03T00:00:00.000Z',
        },
      });
    await give('acme', 'a1', 'sc_1', 'helpful', 1);
    await give('acme', 'a2', 'sc_2', 'helpful', true);
    await give('acme', 'a2', 'sc_3', 'helpful', 0);
    await give('acme', 'a2', 'sc_4', 'tone', 'warm');
    await give('globex', 'g1', 'sc_5', 'helpful', 0);
    const overview = await runsOverview(store.db, { tenant: 'acme', from: '2025-02-28T00:00:00.000Z' });
    expect(overview.scores.map((p) => [p.name, p.day, p.workflow, p.workflowVersion, p.count, p.mean])).toEqual([
      ['helpful', '2025-03-02', 'support', 1, 2, 0.5],
      ['tone', '2025-03-02', 'support', 1, 1, null],
      ['helpful', '2025-03-01', 'support', 1, 1, 1],
    ]);
  });
});
