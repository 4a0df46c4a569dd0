import type { TestingModule } from '@nestjs/testing';
import { query, type Bus } from '@spindle/bus';
import { runCommandSchema, type ApprovalQueryResults, type RunCommand } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import { draft, eventually, openApprovalSchema, removeStreams, startApproval, storedLog, testBus, writeLog } from './approval-test.fixture';
import { RequestTimeoutSweeper } from './request-timeout.sweeper';

describe('RequestTimeoutSweeper (approval service on NATS and Postgres)', () => {
  const namespace = testNamespace();
  const expired = { expiresAt: '2020-01-01T00:00:00.000Z' };
  let app: TestingModule;
  let client: Bus;
  const list = (payload: Record<string, unknown>) =>
    query<ApprovalQueryResults['listRequests']>(client, 'approval', 'listRequests', { tenant: 'default', ...payload });

  beforeAll(async () => {
    app = await startApproval(namespace, 50);
    client = await testBus(namespace, 'approval-sweeper-test');
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await (await openApprovalSchema(namespace)).drop();
  });

  /** Every command on the (work-queue) commands stream, read without consuming it. */
  async function commands(): Promise<RunCommand[]> {
    const { state } = await client.jsm.streams.info(client.names.commandsStream);
    const found: RunCommand[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      const msg = await client.jsm.streams.getMessage(client.names.commandsStream, { seq });
      if (msg) found.push(runCommandSchema.parse(msg.json()));
    }
    return found;
  }

  it('times out an expired request of a waiting run and queues its resume, once', async () => {
    await writeLog(client, 'run-w', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('w-in', expired),
      draft.awaiting(),
    ]);

    const answered = await eventually(async () => {
      const log = await storedLog(client, 'run-w');
      expect(log).toHaveLength(6);
      return log[5];
    });
    expect(answered).toMatchObject({
      type: 'input.answered',
      seq: 6,
      spanId: 'span-ask',
      parentSpanId: 'root',
      nodeId: 'ask',
      path: 'root/ask',
      data: { requestId: 'w-in', timedOut: true, answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' } },
    });
    expect(answered.data).not.toHaveProperty('answer');
    await eventually(async () =>
      expect(await commands()).toEqual([expect.objectContaining({ type: 'run.resume', runId: 'run-w', afterSeq: 6 })]),
    );
    const { requests } = await list({ runId: 'run-w', waitForSeq: 6 });
    expect(requests).toEqual([
      expect.objectContaining({
        requestId: 'w-in',
        status: 'timed_out',
        answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' },
        answer: null,
      }),
    ]);

    // Sweeps that ran meanwhile found the answer in the log; nothing more was appended.
    expect(await storedLog(client, 'run-w')).toHaveLength(6);
    expect(await commands()).toHaveLength(1);
  });

  it('times out an expired tool approval as a rejection of exactly that call', async () => {
    await writeLog(client, 'run-a', [
      draft.queued('support'),
      draft.started(),
      draft.approvalRequested('a-ap', 'call-9', expired),
      draft.awaiting('tool_approval'),
    ]);
    const resolved = await eventually(async () => {
      const log = await storedLog(client, 'run-a');
      expect(log).toHaveLength(5);
      return log[4];
    });
    expect(resolved).toMatchObject({
      type: 'approval.resolved',
      data: { requestId: 'a-ap', decision: 'rejected', callId: 'call-9', name: 'refund', argumentsHash: 'h-40', timedOut: true },
    });
    await eventually(async () =>
      expect((await commands()).filter((c) => c.runId === 'run-a')).toEqual([expect.objectContaining({ type: 'run.resume', afterSeq: 5 })]),
    );
    expect((await list({ runId: 'run-a', waitForSeq: 5 })).requests).toEqual([
      expect.objectContaining({ requestId: 'a-ap', kind: 'approval', status: 'timed_out', expiresAt: expired.expiresAt, answer: null }),
    ]);
  });

  it('appends nothing to a run that is not waiting', async () => {
    // Asked, but the runner has not yet parked the run: it is still running.
    const seq = await writeLog(client, 'run-busy', [
      draft.queued('support'),
      draft.started(),
      draft.askNode(),
      draft.inputRequested('busy-in', expired),
    ]);
    expect((await list({ runId: 'run-busy', waitForSeq: seq })).requests).toEqual([
      expect.objectContaining({ requestId: 'busy-in', status: 'pending' }),
    ]);

    const result = await app.get(RequestTimeoutSweeper).sweepOnce();
    expect(result.skipped).toContain('busy-in');
    expect(result.timedOut).not.toContain('busy-in');
    expect(await storedLog(client, 'run-busy')).toHaveLength(seq);
    expect((await commands()).filter((c) => c.runId === 'run-busy')).toEqual([]);
  });
});
