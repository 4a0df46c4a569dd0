import { runEventSchema, type RunEvent } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { openTestSchema, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { EvaluationProjection } from './evaluation.projection';

const root = { spanId: 'root', path: 'root' };
const evaluators = [
  { type: 'latency_below', maxMs: 1_000 },
  { type: 'exact_match', name: 'right', path: 'city', expected: 'Paris' },
  { type: 'cost_below', maxUsd: 1, sampleRate: 0 },
];

function event(runId: string, seq: number, type: string, data: unknown): RunEvent {
  return runEventSchema.parse({ ...root, runId, seq, type, data, at: `2026-12-04T10:00:0${seq}.000Z` }) as RunEvent;
}
const queued = (runId: string, withEvaluators = evaluators) =>
  event(runId, 1, 'run.queued', {
    workflow: { name: 'judged', version: 3 },
    input: null,
    state: {},
    tenant: 'acme',
    definition: { kind: 'graph', nodes: [], evaluators: withEvaluators },
  });
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const completed = (runId: string) => event(runId, 2, 'run.completed', { output: { city: 'Paris' }, durationMs: 5, usage });
const failed = (runId: string) => event(runId, 2, 'run.failed', { error: { code: 'internal', message: 'x' }, durationMs: 5, usage });

/** The evaluations the control plane folds from the log: once per sampled evaluator of a completed run. */
describe('EvaluationProjection against Postgres', () => {
  let store: Awaited<ReturnType<typeof openTestSchema<GatewayTables>>>;
  let db: Kysely<GatewayTables>;
  const fold = new EvaluationProjection();
  const apply = (events: RunEvent[]) => db.transaction().execute((trx) => fold.apply(trx, events));
  const due = (runId: string) =>
    db
      .selectFrom('evaluations')
      .select(['evaluation_id', 'tenant_id', 'workflow_version', 'status'])
      .where('run_id', '=', runId)
      .orderBy('evaluation_id')
      .execute();

  beforeAll(async () => {
    store = await openTestSchema<GatewayTables>('gateway', testNamespace(), gatewayMigrations);
    db = store.db;
  });
  afterAll(() => store.drop());

  it('makes one pending evaluation per sampled evaluator when the run completes, queued in the batch or before', async () => {
    await apply([queued('r1'), completed('r1')]);
    await apply([queued('r2')]);
    expect(await db.selectFrom('evaluation_runs').select('run_id').where('run_id', '=', 'r2').execute()).toHaveLength(1);
    await apply([completed('r2')]);
    for (const runId of ['r1', 'r2'])
      expect(await due(runId)).toEqual([
        { evaluation_id: `${runId}:latency_below`, tenant_id: 'acme', workflow_version: 3, status: 'pending' },
        { evaluation_id: `${runId}:right`, tenant_id: 'acme', workflow_version: 3, status: 'pending' },
      ]);
    expect(await db.selectFrom('evaluation_runs').select('run_id').where('run_id', 'in', ['r1', 'r2']).execute()).toEqual([]);
  });

  it('makes nothing twice when the log is folded again, and nothing for a failed run or one without evaluators', async () => {
    await apply([queued('r1'), completed('r1')]);
    expect(await due('r1')).toHaveLength(2);
    await apply([queued('r3'), failed('r3')]);
    await apply([queued('r4', []), completed('r4')]);
    expect([...(await due('r3')), ...(await due('r4'))]).toEqual([]);
  });

  it('erases a run’s evaluations with it', async () => {
    await db.transaction().execute((trx) => fold.erase(trx, ['r1']));
    expect(await due('r1')).toEqual([]);
  });
});
