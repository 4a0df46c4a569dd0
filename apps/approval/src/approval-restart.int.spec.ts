import type { TestingModule } from '@nestjs/testing';
import { query, type Bus } from '@spindle/bus';
import type { ApprovalQueryResults } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import {
  allRows,
  draft,
  openApprovalSchema,
  projectionOn,
  removeStreams,
  startApproval,
  storedLog,
  testBus,
  writeLog,
} from './approval-test.fixture';

describe('approval service restarted mid-log', () => {
  const namespace = testNamespace();
  let app: TestingModule | undefined;
  let client: Bus;
  const waitFor = (runId: string, waitForSeq: number) =>
    query<ApprovalQueryResults['listRequests']>(client, 'approval', 'listRequests', { tenant: 'default', runId, waitForSeq });

  beforeAll(async () => {
    client = await testBus(namespace, 'approval-restart-test');
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await (await openApprovalSchema(namespace)).drop();
    await (await openApprovalSchema(namespace, 'never_stopped')).drop();
  });

  it('ends with exactly the rows of a projection that never stopped', async () => {
    app = await startApproval(namespace);
    const r1 = await writeLog(client, 'run-r1', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('r1-in'),
      draft.awaiting(),
    ]);
    const r2 = await writeLog(client, 'run-r2', [
      draft.queued('billing'),
      draft.started(),
      draft.approvalRequested('r2-ap'),
      draft.awaiting('tool_approval'),
    ]);
    expect((await waitFor('run-r1', r1)).requests).toEqual([expect.objectContaining({ requestId: 'r1-in', status: 'pending' })]);
    expect((await waitFor('run-r2', r2)).requests).toEqual([expect.objectContaining({ requestId: 'r2-ap', status: 'pending' })]);
    await app.close();
    app = undefined;

    // While it is down: an answer, a cancel and a whole new run.
    const r1End = await writeLog(
      client,
      'run-r1',
      [draft.inputAnswered('r1-in', { approved: false }), draft.resumed(), draft.completed()],
      '2025-03-01T11:00:00.000Z',
    );
    const r2End = await writeLog(client, 'run-r2', [draft.canceled()], '2025-03-01T11:00:00.000Z');
    const r3End = await writeLog(client, 'run-r3', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('r3-in'),
      draft.awaiting(),
    ]);

    app = await startApproval(namespace);
    expect((await waitFor('run-r1', r1End)).requests).toEqual([
      expect.objectContaining({ status: 'answered', answer: { approved: false } }),
    ]);
    expect((await waitFor('run-r2', r2End)).requests).toEqual([expect.objectContaining({ status: 'canceled' })]);
    expect((await waitFor('run-r3', r3End)).requests).toEqual([expect.objectContaining({ requestId: 'r3-in', status: 'pending' })]);

    const neverStopped = await openApprovalSchema(namespace, 'never_stopped');
    const logs = await Promise.all(['run-r1', 'run-r2', 'run-r3'].map((runId) => storedLog(client, runId)));
    await projectionOn(neverStopped.db, client).apply(logs.flat());
    const restarted = await openApprovalSchema(namespace);
    try {
      expect(await allRows(restarted.db)).toEqual(await allRows(neverStopped.db));
    } finally {
      await restarted.db.destroy();
      await neverStopped.db.destroy();
    }
  });
});
