import type { RunEvent } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { TraceProjection } from './trace.projection';
import { TraceRepository, type RunListFilter } from './trace.repository';
import { completedRun, failedRun, logged, openTraceSchema, queued, usage } from './trace-test.fixture';

/**
 * The trace's fold and its reads against Postgres. How events reach the fold (repeats, gaps,
 * order) is the projection kit's, tested once for every projection by the conformance suite.
 */
describe('the trace projection and its reads against Postgres', () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let db: Kysely<TraceTables>;
  let repo: TraceRepository;

  beforeAll(async () => {
    store = await openTraceSchema(testNamespace());
    db = store.db;
    repo = new TraceRepository(db);
  });
  afterAll(() => store.drop());
  const projection = new TraceProjection('trace-recorder');
  const apply = (items: ReadonlyArray<{ event: RunEvent }>) =>
    db.transaction().execute((trx) =>
      projection.apply(
        trx,
        items.map((i) => i.event),
      ),
    );
  beforeEach(() => db.transaction().execute((trx) => projection.reset(trx)));
  const list = (filter: Omit<RunListFilter, 'sort' | 'order'> & Partial<Pick<RunListFilter, 'sort' | 'order'>>) =>
    repo.listRuns({ sort: 'started', order: 'desc', ...filter });

  const rowsOf = async (runId: string) => ({
    run: await db.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst(),
    spans: await db.selectFrom('spans').selectAll().where('run_id', '=', runId).orderBy('span_id').execute(),
    events: await db.selectFrom('run_events').select(['seq']).where('run_id', '=', runId).orderBy('seq').execute(),
  });

  it('projects a batch into the run, its spans and the raw log', async () => {
    await apply(logged('r1', completedRun()));
    const trace = await repo.getTrace('r1');
    expect(trace?.run).toEqual({
      runId: 'r1',
      workflow: { name: 'support', version: 1 },
      status: 'completed',
      queuedAt: '2025-03-01T10:00:01.000Z',
      startedAt: '2025-03-01T10:00:02.000Z',
      endedAt: '2025-03-01T10:00:07.000Z',
      // Wall time from run.queued to run.completed; no wait, so working time is the same.
      wallMs: 6_000,
      workingMs: 6_000,
      usage: usage(3, 2),
      error: null,
      lastSeq: 7,
      forkedFrom: null,
      tenant: 'default',
      startedBy: null,
      canceledBy: null,
    });
    expect(trace?.spans.map((s) => [s.spanId, s.kind, s.status, s.startSeq, s.endSeq])).toEqual([
      ['root', 'run', 'completed', 1, 7],
      ['span-reply', 'node', 'completed', 3, 6],
      ['span-model', 'model', 'completed', 4, 5],
    ]);
    expect(trace?.spans[2]).toMatchObject({
      parentSpanId: 'span-reply',
      model: 'offline:echo',
      input: { prompt: 'say hi' },
      output: { text: 'hello' },
      usage: usage(3, 2),
      durationMs: 1_000,
      workingMs: 1_000,
    });
    expect((await rowsOf('r1')).events).toHaveLength(7);
    expect(await repo.getTrace('nope')).toBeNull();
  });

  it('gives the same rows whether a log is folded at once or in consecutive pieces', async () => {
    const log = (runId: string) =>
      logged(runId, [...completedRun(), { type: 'custom', spanId: 'root', path: 'root', data: { note: 'after the end' } }]);
    await apply(log('whole'));
    const pieces = log('pieces');
    for (const part of [pieces.slice(0, 2), pieces.slice(2, 5), pieces.slice(5)]) await apply(part);
    const expected = withoutRunId(await repo.getTrace('whole'));
    expect(expected).toMatchObject({ run: { status: 'completed', lastSeq: 8, usage: usage(3, 2) } });
    expect(withoutRunId(await repo.getTrace('pieces'))).toEqual(expected);
  });

  it('closes a span left open by a lost worker when the run ends', async () => {
    const lost = { nodeId: 'step', spanId: 'span-lost', parentSpanId: 'root', path: 'root/step' };
    const retried = { ...lost, spanId: 'span-retry' };
    const log = logged('r1', [
      queued('support'),
      { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'w1' } },
      { type: 'node.started', ...lost, data: { nodeType: 'set', input: {} } },
      { type: 'run.resumed', spanId: 'root', path: 'root', data: { reason: 'worker_lost', attempt: 2, worker: 'w2' } },
      { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 2, worker: 'w2' } },
      { type: 'node.started', ...retried, data: { nodeType: 'set', input: {} } },
      { type: 'node.completed', ...retried, data: { nodeType: 'set', output: { x: 1 }, durationMs: 1 } },
      { type: 'run.completed', spanId: 'root', path: 'root', data: { output: { x: 1 }, durationMs: 9, usage: usage(0, 0) } },
    ]);
    await apply(log.slice(0, 5));
    expect(await repo.getTrace('r1')).toMatchObject({ run: { status: 'running', startedAt: '2025-03-01T10:00:02.000Z' } });
    await apply(log.slice(5));
    const trace = await repo.getTrace('r1');
    expect(trace?.run).toMatchObject({ status: 'completed', startedAt: '2025-03-01T10:00:02.000Z' });
    expect(trace?.spans.find((s) => s.spanId === 'span-lost')).toMatchObject({ status: 'canceled', endedAt: '2025-03-01T10:00:08.000Z' });
    expect(trace?.spans.find((s) => s.spanId === 'span-retry')).toMatchObject({ status: 'completed' });
  });

  it('stores model text with a NUL character (which jsonb refuses) instead of stalling', async () => {
    const log = logged('r1', completedRun());
    const completion = log[4].event;
    if (completion.type !== 'model.completed') throw new Error('fixture changed');
    completion.data.text = 'before\u0000after';
    await apply(log);
    expect((await repo.getTrace('r1'))?.spans.find((s) => s.kind === 'model')?.output).toEqual({ text: 'before\ufffdafter' });
  });

  it('lists runs newest first, page by page, with workflow and status filters', async () => {
    const queuedAt = (runId: string, at: string) => logged(runId, [queued('support')]).map((l) => ({ ...l, event: { ...l.event, at } }));
    await apply([
      ...logged('a', completedRun('support'), { start: '2025-03-01T10:00:00.000Z' }),
      ...logged('b', failedRun('orders'), { start: '2025-03-01T11:00:00.000Z' }),
      ...logged('c', completedRun('support'), { start: '2025-03-01T12:00:00.000Z' }),
      ...queuedAt('d', '2025-03-01T13:00:00.000Z'),
      // Queued within the same millisecond: the cursor must keep their microseconds apart.
      ...queuedAt('e', '2025-03-01T13:00:00.000400Z'),
      ...queuedAt('f', '2025-03-01T13:00:00.000600Z'),
    ]);

    const ids = (page: { runs: Array<{ runId: string }> }) => page.runs.map((r) => r.runId);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list({ tenant: 'default', limit: 2, cursor });
      seen.push(...ids(page));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(['f', 'e', 'd', 'c', 'b', 'a']);

    expect(ids(await list({ tenant: 'default', limit: 50, workflow: 'support', status: 'completed' }))).toEqual(['c', 'a']);
    expect(ids(await list({ tenant: 'default', limit: 50, workflow: 'orders' }))).toEqual(['b']);
    const first = await list({ tenant: 'default', limit: 1, status: 'queued' });
    expect(ids(first)).toEqual(['f']);
    expect(ids(await list({ tenant: 'default', limit: 5, status: 'queued', cursor: first.nextCursor ?? undefined }))).toEqual(['e', 'd']);
    expect((await list({ tenant: 'default', limit: 5, status: 'queued', cursor: first.nextCursor ?? undefined })).nextCursor).toBeNull();
    await expect(list({ tenant: 'default', limit: 5, cursor: 'garbage' })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('empties all three tables on reset', async () => {
    await apply(logged('r1', failedRun()));
    await db.transaction().execute((trx) => projection.reset(trx));
    expect(await rowsOf('r1')).toEqual({ run: undefined, spans: [], events: [] });
  });

  it("lists only the tenant's own runs, and sums what a tenant's runs queued since a time used", async () => {
    const asTenant = (tenant: string, items: ReadonlyArray<{ event: RunEvent }>) =>
      items.map((i) => (i.event.type === 'run.queued' ? { ...i, event: { ...i.event, data: { ...i.event.data, tenant } } } : i));
    await apply([
      ...asTenant('acme', logged('acme-1', completedRun('support', usage(10, 5)), { start: '2025-03-02T10:00:00.000Z' })),
      ...asTenant('acme', logged('acme-2', completedRun('support', usage(1, 1)), { start: '2025-03-02T11:00:00.000Z' })),
      ...asTenant('globex', logged('globex-1', completedRun('support', usage(100, 100)), { start: '2025-03-02T12:00:00.000Z' })),
    ]);
    expect((await list({ tenant: 'acme', limit: 50 })).runs.map((r) => [r.runId, r.tenant])).toEqual([
      ['acme-2', 'acme'],
      ['acme-1', 'acme'],
    ]);
    expect((await list({ tenant: 'globex', limit: 50, workflow: 'support' })).runs.map((r) => r.runId)).toEqual(['globex-1']);
    expect(await repo.tenantUsage('acme', '2025-03-02T00:00:00.000Z')).toEqual({
      usage: { inputTokens: 11, outputTokens: 6, totalTokens: 17, costUsd: 0 },
      runs: 2,
    });
    expect((await repo.tenantUsage('acme', '2025-03-02T10:30:00.000Z')).runs).toBe(1);
    expect(await repo.tenantUsage('nobody', '2025-03-02T00:00:00.000Z')).toEqual({
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 },
      runs: 0,
    });
  });

  /** The drafts of a completed run, queued by `tenant`, a fork of `parent` at `seq` when given. */
  const runOf = (runId: string, start: string, o: { tenant?: string; workflow?: string; parent?: string } = {}) =>
    logged(runId, completedRun(o.workflow), { start }).map((i) =>
      i.event.type === 'run.queued'
        ? {
            ...i,
            event: {
              ...i.event,
              data: {
                ...i.event.data,
                tenant: o.tenant ?? 'acme',
                ...(o.parent && { forkedFrom: { runId: o.parent, seq: 6, checkpointId: 'cp-1' } }),
              },
            },
          }
        : i,
    );

  it("walks a run's lineage up to its root and down every fork, within the tenant", async () => {
    await apply([
      ...runOf('root', '2025-03-02T10:00:00.000Z'),
      ...runOf('fork-a', '2025-03-02T11:00:00.000Z', { parent: 'root' }),
      ...runOf('fork-b', '2025-03-02T12:00:00.000Z', { parent: 'root' }),
      ...runOf('fork-a-1', '2025-03-02T13:00:00.000Z', { parent: 'fork-a' }),
      ...runOf('unrelated', '2025-03-02T14:00:00.000Z'),
      // Another tenant's row naming acme's run as its parent is never part of acme's tree.
      ...runOf('globex-fork', '2025-03-02T15:00:00.000Z', { tenant: 'globex', parent: 'root' }),
    ]);
    for (const asked of ['fork-a-1', 'root', 'fork-b']) {
      const { runs, truncated } = await repo.lineage('acme', asked);
      expect({ asked, truncated, runs: runs.map((r) => r.runId) }).toEqual({
        asked,
        truncated: false,
        runs: ['root', 'fork-a', 'fork-b', 'fork-a-1'],
      });
    }
    expect((await repo.lineage('acme', 'fork-a-1')).runs[3]?.forkedFrom).toEqual({ runId: 'fork-a', seq: 6, checkpointId: 'cp-1' });
    expect((await repo.lineage('acme', 'unrelated')).runs.map((r) => r.runId)).toEqual(['unrelated']);
    expect((await repo.lineage('globex', 'root')).runs).toEqual([]);
    expect((await repo.lineage('globex', 'globex-fork')).runs.map((r) => r.runId)).toEqual(['globex-fork']);
  });

  it('leaves internal (`_…`) runs out of lists and searches unless asked to include them', async () => {
    await apply([
      ...runOf('work', '2025-03-02T10:00:00.000Z'),
      ...runOf('state-change', '2025-03-02T11:00:00.000Z', { workflow: '_thread_state' }),
    ]);
    expect((await list({ tenant: 'acme', limit: 50 })).runs.map((r) => r.runId)).toEqual(['work']);
    expect((await list({ tenant: 'acme', limit: 50, q: 'hello' })).runs.map((r) => r.runId)).toEqual(['work']);
    expect((await list({ tenant: 'acme', limit: 50, internal: 'include' })).runs.map((r) => r.runId)).toEqual(['state-change', 'work']);
  });
});

describe('the runs list searched and sorted against Postgres', () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let repo: TraceRepository;
  const projection = new TraceProjection('trace-recorder');
  const tenant = 'acme';

  /** A run with its own input, output, parameters, usage and duration, queued at `start`. */
  function run(
    runId: string,
    o: { input: unknown; output?: unknown; parameters?: Record<string, unknown>; tokens: number; ms: number; start: string },
  ) {
    const drafts = o.output === undefined ? failedRun() : completedRun('support', { ...usage(o.tokens, 0), costUsd: o.tokens / 1000 });
    const items = logged(runId, drafts, { start: o.start });
    // The run's wall time is its events' distance: its end comes `o.ms` (scaled) after its other events.
    const endAt = new Date(Date.parse(o.start) + 10_000 + o.ms * 10).toISOString();
    return items.map(({ event }) => {
      if (event.type === 'run.queued') return { ...event, data: { ...event.data, tenant, input: o.input, parameters: o.parameters } };
      if (event.type === 'run.completed')
        return { ...event, at: endAt, data: { ...event.data, output: o.output as Record<string, unknown>, durationMs: o.ms } };
      if (event.type === 'run.failed') return { ...event, at: endAt, data: { ...event.data, durationMs: o.ms } };
      return event;
    });
  }

  beforeAll(async () => {
    store = await openTraceSchema(testNamespace());
    repo = new TraceRepository(store.db);
    const events = [
      run('run-parcel', {
        input: { q: 'Where is my parcel?' },
        output: { a: 'Shipped to Lyon' },
        parameters: { tier: 2 },
        tokens: 30,
        ms: 900,
        start: '2025-04-01T09:00:00.000Z',
      }),
      run('run-refund', {
        input: { q: 'A refund for order 4411' },
        output: { a: 'Refunded' },
        parameters: { tier: '2' },
        tokens: 10,
        ms: 300,
        start: '2025-04-02T09:00:00.000Z',
      }),
      run('run-lost', {
        input: { q: 'parcel lost in Lyon' },
        parameters: { tier: 1 },
        tokens: 0,
        ms: 50,
        start: '2025-04-03T09:00:00.000Z',
      }),
      run('run_5x', { input: 'plain', output: { a: 'ok' }, tokens: 20, ms: 600, start: '2025-04-04T09:00:00.000Z' }),
    ].flat();
    await store.db.transaction().execute((trx) => projection.apply(trx, events));
  });
  afterAll(() => store.drop());

  const ids = (filter: Partial<RunListFilter>) =>
    repo.listRuns({ tenant, sort: 'started', order: 'desc', limit: 50, ...filter }).then((page) => page.runs.map((r) => r.runId));

  it('finds runs by words of their input or output, as prefixes, all words together', async () => {
    expect(await ids({ q: 'parcel' })).toEqual(['run-lost', 'run-parcel']);
    expect(await ids({ q: 'PARC lyon' })).toEqual(['run-lost', 'run-parcel']);
    expect(await ids({ q: 'shipped lyon' })).toEqual(['run-parcel']);
    expect(await ids({ q: '4411' })).toEqual(['run-refund']);
    expect(await ids({ q: 'nothing-like-this' })).toEqual([]);
  });

  it('finds a run by the start of its id, reading % and _ as themselves', async () => {
    expect(await ids({ q: 'run-re' })).toEqual(['run-refund']);
    // Unescaped, `_` would match the `-` of every other id and `%` anything.
    expect(await ids({ q: 'run_' })).toEqual(['run_5x']);
    expect(await ids({ q: 'run%' })).toEqual([]);
  });

  it('filters by error code, parameter value (as JSON or as text) and time window', async () => {
    expect(await ids({ errorCode: 'function_failed' })).toEqual(['run-lost']);
    expect(await ids({ parameter: 'tier=2' })).toEqual(['run-refund', 'run-parcel']);
    expect(await ids({ parameter: 'tier=1' })).toEqual(['run-lost']);
    expect(await ids({ parameter: 'tier=' })).toEqual([]);
    expect(await ids({ from: '2025-04-02T00:00:00Z', to: '2025-04-04T00:00:00Z' })).toEqual(['run-lost', 'run-refund']);
    expect(await ids({ q: 'parcel', from: '2025-04-02T00:00:00Z' })).toEqual(['run-lost']);
  });

  it.each([
    ['duration', 'desc', ['run-parcel', 'run_5x', 'run-refund', 'run-lost']],
    ['duration', 'asc', ['run-lost', 'run-refund', 'run_5x', 'run-parcel']],
    ['tokens', 'desc', ['run-parcel', 'run_5x', 'run-refund', 'run-lost']],
    ['cost', 'asc', ['run-lost', 'run-refund', 'run_5x', 'run-parcel']],
    ['started', 'asc', ['run-parcel', 'run-refund', 'run-lost', 'run_5x']],
  ] as const)('sorts by %s %s and pages through every run once', async (sort, order, expected) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await repo.listRuns({ tenant, sort, order, limit: 1, cursor });
      seen.push(...page.runs.map((r) => r.runId));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
  });

  it("never shows another tenant's runs, whatever the search", async () => {
    expect(await ids({ tenant: 'globex', q: 'parcel' })).toEqual([]);
    expect(await ids({ tenant: 'globex', q: 'run-' })).toEqual([]);
  });
});

function withoutRunId<T extends { run: { runId: string } } | null>(trace: T) {
  if (!trace) throw new Error('no trace');
  return { ...trace, run: { ...trace.run, runId: undefined } };
}
