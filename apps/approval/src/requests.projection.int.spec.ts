import type { Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import { testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { allRows, draft, openApprovalSchema, projectionOn, removeStreams, storedLog, testBus, writeLog } from './approval-test.fixture';

describe('RequestsProjection (Postgres, run logs on NATS)', () => {
  const namespace = testNamespace();
  let bus: Bus;
  let log: RunEvent[];
  const schemas: Array<{ db: Kysely<ApprovalTables>; drop(): Promise<void> }> = [];
  const openSchema = async (owner: string) => {
    const schema = await openApprovalSchema(namespace, owner);
    schemas.push(schema);
    return schema.db;
  };

  beforeAll(async () => {
    bus = await testBus(namespace, 'approval-projection-test');
    await writeLog(bus, 'run-a', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('req-a1', { expiresAt: '2030-01-01T00:00:00.000Z' }),
      draft.awaiting(),
      draft.inputAnswered('req-a1', { approved: true }),
      draft.resumed(),
      draft.approvalRequested('req-a2'),
      draft.awaiting('tool_approval'),
      draft.approvalResolved('req-a2', 'rejected', 'call-1', 'too much'),
      draft.resumed(),
      draft.completed(),
    ]);
    await writeLog(bus, 'run-t', [
      draft.queued('billing'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('req-t1', { expiresAt: '2025-03-01T10:00:05.000Z' }),
      draft.awaiting(),
      draft.inputTimedOut('req-t1'),
      draft.resumed(),
      draft.completed(),
    ]);
    await writeLog(bus, 'run-c', [
      draft.queued('billing'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('req-c1'),
      draft.awaiting(),
      draft.canceled(),
    ]);
    await writeLog(bus, 'run-p', [
      draft.queued('support'),
      draft.started(),
      draft.approvalRequested('req-p1', 'call-9'),
      draft.awaiting('tool_approval'),
    ]);
    // Runs interleaved, as the events stream delivers them.
    const logs = await Promise.all(['run-a', 'run-t', 'run-c', 'run-p'].map((runId) => storedLog(bus, runId)));
    log = interleave(logs);
  });
  afterAll(async () => {
    for (const s of schemas) await s.drop();
    await bus?.close();
    await removeStreams(namespace);
  });

  it('projects input and approval requests, their answers, a time-out and a canceled run', async () => {
    const db = await openSchema('approval');
    expect(await projectionOn(db, bus).apply(log)).toBe(log.length);

    const { runs, requests, progress } = await allRows(db);
    expect(runs).toEqual([
      { run_id: 'run-a', tenant: 'default', workflow: 'support', status: 'completed' },
      { run_id: 'run-c', tenant: 'default', workflow: 'billing', status: 'canceled' },
      { run_id: 'run-p', tenant: 'default', workflow: 'support', status: 'active' },
      { run_id: 'run-t', tenant: 'default', workflow: 'billing', status: 'completed' },
    ]);
    const at = (s: number) => new Date(Date.parse('2025-03-01T10:00:00.000Z') + s * 1_000);
    // Each run's retention clock is its run.queued's `at`.
    expect(progress).toEqual([
      { run_id: 'run-a', last_seq: 12, last_type: 'run.completed', queued_at: at(1) },
      { run_id: 'run-c', last_seq: 6, last_type: 'run.canceled', queued_at: at(1) },
      { run_id: 'run-p', last_seq: 4, last_type: 'run.awaiting', queued_at: at(1) },
      { run_id: 'run-t', last_seq: 8, last_type: 'run.completed', queued_at: at(1) },
    ]);
    const input = { kind: 'input', node_id: 'ask', prompt: 'Ship it?', form: { kind: 'boolean' }, call: null, mode: 'single' };
    const approval = { kind: 'approval', node_id: 'agent', prompt: 'Refund 40 EUR?', form: null, mode: 'single' };
    const refund = (callId: string) => ({ callId, name: 'refund', arguments: { amount: 40 }, argumentsHash: 'h-40' });
    expect(requests).toEqual([
      {
        request_id: 'req-a1',
        run_id: 'run-a',
        tenant: 'default',
        workflow: 'support',
        ...input,
        status: 'answered',
        seq: 4,
        requested_at: at(4),
        expires_at: new Date('2030-01-01T00:00:00.000Z'),
        answered_at: at(6),
        answered_by: { kind: 'user', id: 'ana', name: 'ana' },
        answer: { approved: true },
      },
      {
        request_id: 'req-a2',
        run_id: 'run-a',
        tenant: 'default',
        workflow: 'support',
        ...approval,
        call: refund('call-1'),
        status: 'answered',
        seq: 8,
        requested_at: at(8),
        expires_at: null,
        answered_at: at(10),
        answered_by: { kind: 'user', id: 'bo', name: 'bo' },
        answer: { decision: 'rejected', message: 'too much', callId: 'call-1', name: 'refund', argumentsHash: 'h-40' },
      },
      {
        request_id: 'req-c1',
        run_id: 'run-c',
        tenant: 'default',
        workflow: 'billing',
        ...input,
        status: 'canceled',
        seq: 4,
        requested_at: at(4),
        expires_at: null,
        answered_at: null,
        answered_by: null,
        answer: null,
      },
      {
        request_id: 'req-p1',
        run_id: 'run-p',
        tenant: 'default',
        workflow: 'support',
        ...approval,
        call: refund('call-9'),
        status: 'pending',
        seq: 3,
        requested_at: at(3),
        expires_at: null,
        answered_at: null,
        answered_by: null,
        answer: null,
      },
      {
        request_id: 'req-t1',
        run_id: 'run-t',
        tenant: 'default',
        workflow: 'billing',
        ...input,
        status: 'timed_out',
        seq: 4,
        requested_at: at(4),
        expires_at: at(5),
        answered_at: at(6),
        answered_by: { kind: 'system', id: 'timeout', name: 'time-out' },
        answer: null,
      },
    ]);
  });

  it('ends with the same rows when events come twice, in overlapping batches', async () => {
    const once = await openSchema('approval_once');
    const batched = await openSchema('approval_batched');
    await projectionOn(once, bus).apply(log);

    const projection = projectionOn(batched, bus);
    const third = Math.ceil(log.length / 3);
    await projection.apply(log.slice(0, 2 * third));
    await projection.apply(log.slice(third));
    expect(await projection.apply(log)).toBe(0);
    await projection.apply([...log.slice(0, third), ...log.slice(0, third)]);

    expect(await allRows(batched)).toEqual(await allRows(once));
  });

  it('reads what a batch skipped from the log, so a late redelivery of earlier events changes nothing', async () => {
    const once = await openSchema('approval_inorder');
    const late = await openSchema('approval_late');
    await projectionOn(once, bus).apply(log);

    const projection = projectionOn(late, bus);
    const half = Math.floor(log.length / 2);
    // The later half first: each run continues from where it was applied, read from its log.
    expect(await projection.apply(log.slice(half))).toBe(log.length);
    expect(await projection.apply(log.slice(0, half))).toBe(0);

    expect(await allRows(late)).toEqual(await allRows(once));
  });

  it('stores a NUL character, which Postgres refuses, as U+FFFD instead of stalling the projection', async () => {
    const db = await openSchema('approval_nul');
    await writeLog(bus, 'run-nul', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('req-nul', { prompt: 'Ship\u0000it?' }),
    ]);
    await projectionOn(db, bus).apply(await storedLog(bus, 'run-nul'));
    expect(await db.selectFrom('requests').select(['request_id', 'prompt', 'status']).execute()).toEqual([
      { request_id: 'req-nul', prompt: 'Ship\uFFFDit?', status: 'pending' },
    ]);
  });
});

/** One event of each log in turn, keeping each log's order. */
function interleave(logs: RunEvent[][]): RunEvent[] {
  const out: RunEvent[] = [];
  for (let i = 0; i < Math.max(...logs.map((l) => l.length)); i++) for (const l of logs) if (l[i]) out.push(l[i]);
  return out;
}
