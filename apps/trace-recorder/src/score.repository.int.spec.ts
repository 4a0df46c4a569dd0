import type { RunEvent, TraceQuery } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { ScoreRepository } from './score.repository';
import { TraceProjection } from './trace.projection';
import { TraceRepository } from './trace.repository';
import { completedRun, logged, openTraceSchema } from './trace-test.fixture';

/** Scores against Postgres: kept once beside the trace, out of every other tenant's reach, left by a rebuild, taken by an erase. */
describe('scores beside the trace', () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let db: Kysely<TraceTables>;
  let scores: ScoreRepository;
  const projection = new TraceProjection('trace-recorder');

  beforeAll(async () => {
    store = await openTraceSchema(testNamespace());
    db = store.db;
    scores = new ScoreRepository(db);
    const events: RunEvent[] = logged('r1', completedRun()).map((i) => i.event);
    await db.transaction().execute((trx) => projection.apply(trx, events));
  });
  afterAll(() => store.drop());

  const person = { kind: 'user' as const, id: 'ana', name: 'Ana' };
  const recordOf = (scoreId: string, score: Partial<TraceQuery<'recordScore'>['score']> = {}, tenant = 'default') => ({
    tenant,
    runId: 'r1',
    score: {
      scoreId,
      spanId: null,
      name: 'helpfulness',
      value: 0.8,
      comment: null,
      by: person,
      evaluator: null,
      createdAt: '2025-03-01T11:00:00.000Z',
      ...score,
    },
  });

  it('keeps a score of the run and one of its model call, and lists them oldest first', async () => {
    const first = await scores.record(recordOf('sc_1'));
    expect(first).toEqual({
      created: true,
      score: expect.objectContaining({ scoreId: 'sc_1', runId: 'r1', value: 0.8, dataType: 'numeric', by: person, spanId: null }),
    });
    await scores.record(recordOf('sc_2', { spanId: 'span-model', name: 'correct', value: true, createdAt: '2025-03-01T11:00:01.000Z' }));
    const { scores: listed } = await scores.list({ tenant: 'default', runId: 'r1' });
    expect(listed.map((s) => [s.scoreId, s.name, s.value, s.dataType, s.spanId])).toEqual([
      ['sc_1', 'helpfulness', 0.8, 'numeric', null],
      ['sc_2', 'correct', true, 'boolean', 'span-model'],
    ]);
  });

  it('answers a repeat with the stored score and refuses a different body under the same id', async () => {
    await scores.record(recordOf('sc_3', { value: 'good' }));
    await expect(scores.record(recordOf('sc_3', { value: 'good', createdAt: '2025-03-02T00:00:00.000Z' }))).resolves.toEqual({
      created: false,
      score: expect.objectContaining({ scoreId: 'sc_3', value: 'good', createdAt: '2025-03-01T11:00:00.000Z' }),
    });
    await expect(scores.record(recordOf('sc_3', { value: 'bad' }))).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('refuses another tenant’s run as not found and a span the trace does not have, writing nothing', async () => {
    await expect(scores.record(recordOf('sc_4', {}, 'acme'))).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(scores.list({ tenant: 'acme', runId: 'r1' })).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(scores.record(recordOf('sc_5', { spanId: 'no-such-span' }))).rejects.toMatchObject({ code: 'span_not_found' });
    const ids = await db.selectFrom('scores').select('score_id').where('score_id', 'in', ['sc_4', 'sc_5']).execute();
    expect(ids).toEqual([]);
  });

  it('gives the trace the run’s scores oldest first, each on the run or on the span it names', async () => {
    const trace = await new TraceRepository(db).getTrace('r1');
    expect(trace?.scores.map((s) => [s.scoreId, s.name, s.value, s.dataType, s.spanId])).toEqual([
      ['sc_1', 'helpfulness', 0.8, 'numeric', null],
      ['sc_3', 'helpfulness', 'good', 'categorical', null],
      ['sc_2', 'correct', true, 'boolean', 'span-model'],
    ]);
    expect(trace?.scores[0]).toMatchObject({ by: person, comment: null, evaluator: null, createdAt: '2025-03-01T11:00:00.000Z' });
    // The model call the score names is a span of the same trace.
    expect(trace?.spans.find((s) => s.spanId === trace.scores[2].spanId)?.kind).toBe('model');
  });

  it('filters the runs list by a score and its value, and sorts it by the score’s mean', async () => {
    const runs = ['s1', 's2', 's3'];
    const events = runs.flatMap((runId, i) => logged(runId, completedRun(), { start: `2025-03-02T10:0${i}:00.000Z` }).map((e) => e.event));
    await db.transaction().execute((trx) => projection.apply(trx, events));
    const give = (runId: string, n: number, name: string, value: number | boolean | string) =>
      scores.record({ ...recordOf(`sc_${runId}_${n}`, { name, value }), runId });
    await give('s1', 1, 'quality', 0.2);
    await give('s1', 2, 'quality', 0.4);
    await give('s2', 1, 'quality', 0.9);
    await give('s2', 2, 'correct', true);
    await give('s3', 1, 'tone', 'friendly');
    const traces = new TraceRepository(db);
    const ids = async (score: string, sort: 'started' | 'score' = 'started', order: 'asc' | 'desc' = 'desc') =>
      (await traces.listRuns({ tenant: 'default', score, sort, order, limit: 10 })).runs
        .map((r) => r.runId)
        .filter((id) => runs.includes(id));
    expect(await ids('quality')).toEqual(['s2', 's1']);
    expect(await ids('quality>=0.5')).toEqual(['s2']);
    expect(await ids('quality<0.3')).toEqual(['s1']);
    expect(await ids('correct=true')).toEqual(['s2']);
    expect(await ids('correct=1')).toEqual(['s2']);
    expect(await ids('tone=friendly')).toEqual(['s3']);
    expect(await ids('tone=curt')).toEqual([]);
    // s1's mean is 0.3, s2's 0.9: the order is by the mean, both ways.
    expect(await ids('quality', 'score', 'desc')).toEqual(['s2', 's1']);
    expect(await ids('quality', 'score', 'asc')).toEqual(['s1', 's2']);
  });

  it('pages a score-sorted list with its cursor', async () => {
    const traces = new TraceRepository(db);
    const page = (cursor?: string) =>
      traces.listRuns({ tenant: 'default', score: 'quality', sort: 'score', order: 'desc', limit: 1, cursor });
    const first = await page();
    const second = await page(first.nextCursor!);
    expect([first.runs[0]?.runId, second.runs[0]?.runId]).toEqual(['s2', 's1']);
  });

  it('keeps scores through a rebuild’s reset and erases them with their run', async () => {
    await db.transaction().execute((trx) => projection.reset(trx));
    expect((await db.selectFrom('scores').select('score_id').where('run_id', '=', 'r1').execute()).length).toBe(3);
    expect((await db.selectFrom('scores').select('score_id').execute()).length).toBe(8);
    await db.transaction().execute((trx) => projection.erase(trx, ['r1']));
    expect(await db.selectFrom('scores').select('score_id').where('run_id', '=', 'r1').execute()).toEqual([]);
  });
});
