import type { TestingModule } from '@nestjs/testing';
import { query, type Bus } from '@spindle/bus';
import type { ApprovalQueryResults, HumanRequest } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import { draft, openApprovalSchema, removeStreams, startApproval, testBus, writeLog } from './approval-test.fixture';

describe('listRequests over NATS (approval service on NATS and Postgres)', () => {
  const namespace = testNamespace();
  let app: TestingModule;
  let client: Bus;
  const lastSeq: Record<string, number> = {};
  const list = (payload: Record<string, unknown>) =>
    query<ApprovalQueryResults['listRequests']>(client, 'approval', 'listRequests', { tenant: 'default', ...payload });
  const ids = (requests: HumanRequest[]) => requests.map((r) => r.requestId);

  beforeAll(async () => {
    app = await startApproval(namespace);
    client = await testBus(namespace, 'approval-queries-test');
    const asking = [draft.queued('support'), draft.started(), draft.askNode()];
    lastSeq['run-q1'] = await writeLog(
      client,
      'run-q1',
      [...asking, draft.inputRequested('q1-in', { expiresAt: '2030-01-01T00:00:00.000Z' }), draft.awaiting()],
      '2025-03-01T10:00:00.000Z',
    );
    lastSeq['run-q2'] = await writeLog(
      client,
      'run-q2',
      [
        draft.queued('billing'),
        draft.started(),
        draft.approvalRequested('q2-ap'),
        draft.awaiting('tool_approval'),
        draft.approvalResolved('q2-ap', 'approved'),
        draft.resumed(),
      ],
      '2025-03-01T10:01:00.000Z',
    );
    lastSeq['run-q3'] = await writeLog(
      client,
      'run-q3',
      [...asking, draft.inputRequested('q3-in'), draft.awaiting()],
      '2025-03-01T10:02:00.000Z',
    );
    lastSeq['run-q4'] = await writeLog(
      client,
      'run-q4',
      [...asking, draft.inputRequested('q4-in'), draft.awaiting(), draft.canceled()],
      '2025-03-01T10:03:00.000Z',
    );
    // Asked at the same instant: the request id orders them.
    lastSeq['run-q6'] = await writeLog(
      client,
      'run-q6',
      [...asking, draft.inputRequested('q6-in'), draft.awaiting()],
      '2025-03-01T10:04:00.000Z',
    );
    lastSeq['run-q5'] = await writeLog(
      client,
      'run-q5',
      [...asking, draft.inputRequested('q5-in'), draft.awaiting()],
      '2025-03-01T10:04:00.000Z',
    );
    for (const [runId, seq] of Object.entries(lastSeq)) await list({ runId, waitForSeq: seq });
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await (await openApprovalSchema(namespace)).drop();
  });

  it('shows a request as the contract describes it', async () => {
    const { requests, nextCursor } = await list({ runId: 'run-q1' });
    expect(nextCursor).toBeNull();
    expect(requests).toEqual([
      {
        requestId: 'q1-in',
        runId: 'run-q1',
        workflow: 'support',
        nodeId: 'ask',
        kind: 'input',
        prompt: 'Ship it?',
        form: { kind: 'boolean' },
        call: null,
        mode: 'single',
        status: 'pending',
        requestedAt: '2025-03-01T10:00:04.000Z',
        expiresAt: '2030-01-01T00:00:00.000Z',
        ageMs: expect.any(Number),
        answeredAt: null,
        answeredBy: null,
        answer: null,
        seq: 4,
      },
    ]);
    expect(requests[0].ageMs).toBeGreaterThan(0);
  });

  it('filters by status and by run, oldest first', async () => {
    expect(ids((await list({ status: 'pending' })).requests)).toEqual(['q1-in', 'q3-in', 'q5-in', 'q6-in']);
    expect((await list({ status: 'answered' })).requests).toEqual([
      expect.objectContaining({
        requestId: 'q2-ap',
        kind: 'approval',
        answeredBy: { kind: 'user', id: 'bo', name: 'bo' },
        answer: { decision: 'approved', callId: 'call-1', name: 'refund', argumentsHash: 'h-40' },
      }),
    ]);
    expect(ids((await list({ status: 'canceled' })).requests)).toEqual(['q4-in']);
    expect(ids((await list({ status: 'pending', runId: 'run-q4' })).requests)).toEqual([]);
    expect(ids((await list({ runId: 'run-q4' })).requests)).toEqual(['q4-in']);
  });

  it('pages with an opaque cursor until nextCursor is null, the same-instant pair included', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await list({ limit: 2, ...(cursor && { cursor }) });
      expect(result.requests.length).toBeLessThanOrEqual(2);
      seen.push(...ids(result.requests));
      if (!result.nextCursor) break;
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(['q1-in', 'q2-ap', 'q3-in', 'q4-in', 'q5-in', 'q6-in']);

    const first = await list({ status: 'pending', limit: 3 });
    expect(ids(first.requests)).toEqual(['q1-in', 'q3-in', 'q5-in']);
    expect(ids((await list({ status: 'pending', limit: 3, cursor: first.nextCursor })).requests)).toEqual(['q6-in']);
  });

  it('counts the pending requests by age for the overview, overall or for one workflow', async () => {
    const ages = (payload: Record<string, unknown>) =>
      query<ApprovalQueryResults['pendingAges']>(client, 'approval', 'pendingAges', { tenant: 'default', ...payload });
    // Asked in 2025: every pending one has waited over a week; answered and canceled ones are not counted.
    expect(await ages({})).toEqual({
      buckets: [
        { age: 'under 1 h', requests: 0 },
        { age: '1–24 h', requests: 0 },
        { age: '1–7 d', requests: 0 },
        { age: 'over 7 d', requests: 4 },
      ],
      oldestRequestedAt: '2025-03-01T10:00:04.000Z',
    });
    expect((await ages({ workflow: 'billing' })).buckets.map((b) => b.requests)).toEqual([0, 0, 0, 0]);
    expect(await ages({ tenant: 'acme' })).toMatchObject({ oldestRequestedAt: null });
  });

  it('waits for a seq of the run that is not applied yet, and answers after a bounded wait when it never comes', async () => {
    const asked = list({ runId: 'run-q7', waitForSeq: 5 });
    await writeLog(client, 'run-q7', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('q7-in'),
      draft.awaiting(),
    ]);
    expect(ids((await asked).requests)).toEqual(['q7-in']);

    // Seq 99 is never written: the answer still comes, with what is applied.
    expect(ids((await list({ runId: 'run-q1', waitForSeq: 99 })).requests)).toEqual(['q1-in']);
  });

  it('shows each tenant only its own requests, and answers no query that names no tenant', async () => {
    const seq = await writeLog(client, 'run-acme', [
      draft.queued('support', 'acme'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('acme-in'),
      draft.awaiting(),
    ]);
    expect(ids((await list({ tenant: 'acme', runId: 'run-acme', waitForSeq: seq })).requests)).toEqual(['acme-in']);
    expect(ids((await list({ tenant: 'acme' })).requests)).toEqual(['acme-in']);
    expect(ids((await list({})).requests)).not.toContain('acme-in');
    expect(ids((await list({ runId: 'run-acme' })).requests)).toEqual([]);
    await expect(list({ tenant: undefined })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('tenant'),
    });
  });

  it('refuses a bad query naming the field', async () => {
    await expect(list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('cursor'),
    });
    await expect(list({ limit: 201 })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('limit') });
    await expect(list({ status: 'lost' })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('status') });
  });
});
