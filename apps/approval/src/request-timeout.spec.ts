import { runEventSchema, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { draft } from './approval-test.fixture';
import { timeoutAnswerFor } from './request-timeout';

const now = new Date('2025-03-01T12:00:00.000Z');
const past = '2025-03-01T11:00:00.000Z';

function logOf(drafts: RunEventDraft[]): RunEvent[] {
  return drafts.map((d, i) => runEventSchema.parse({ ...d, runId: 'run-1', seq: i + 1, at: '2025-03-01T10:00:00.000Z' }) as RunEvent);
}
const asking = [draft.queued('support'), draft.started(), draft.askNode()];

describe('timeoutAnswerFor', () => {
  it('answers an expired request of a waiting run on its own span, copying iteration and branch', () => {
    const requested = { ...draft.inputRequested('req-1', { expiresAt: past }), iteration: 2, branchId: 'b-1' } as RunEventDraft;
    expect(timeoutAnswerFor('req-1', now)(logOf([...asking, requested, draft.awaiting()]))).toEqual({
      type: 'input.answered',
      spanId: 'span-ask',
      parentSpanId: 'root',
      nodeId: 'ask',
      path: 'root/ask',
      iteration: 2,
      branchId: 'b-1',
      data: { requestId: 'req-1', timedOut: true, answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' } },
    });
  });

  it('appends nothing when the run is not waiting', () => {
    const requested = draft.inputRequested('req-1', { expiresAt: past });
    expect(timeoutAnswerFor('req-1', now)(logOf([...asking, requested]))).toBeUndefined();
    expect(timeoutAnswerFor('req-1', now)(logOf([...asking, requested, draft.awaiting(), draft.canceled()]))).toBeUndefined();
    expect(timeoutAnswerFor('req-1', now)(logOf([...asking, requested, draft.awaiting(), draft.resumed()]))).toBeUndefined();
  });

  it('rejects an expired tool approval, bound to exactly the call it showed', () => {
    const log = logOf([...asking, draft.approvalRequested('req-1', 'call-7', { expiresAt: past }), draft.awaiting('tool_approval')]);
    expect(timeoutAnswerFor('req-1', now)(log)).toMatchObject({
      type: 'approval.resolved',
      data: {
        requestId: 'req-1',
        decision: 'rejected',
        callId: 'call-7',
        name: 'refund',
        argumentsHash: 'h-40',
        timedOut: true,
        answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' },
      },
    });
    expect(
      runEventSchema.safeParse({ ...timeoutAnswerFor('req-1', now)(log), runId: 'run-1', seq: 9, at: now.toISOString() }).success,
    ).toBe(true);
  });

  it('appends nothing for a request answered, unknown, an approval without a time limit, or not yet past its deadline', () => {
    const waiting = (requested: RunEventDraft, ...more: RunEventDraft[]) => logOf([...asking, requested, draft.awaiting(), ...more]);
    expect(
      timeoutAnswerFor(
        'req-1',
        now,
      )(waiting(draft.inputRequested('req-1', { expiresAt: past }), draft.inputAnswered('req-1', { approved: true }))),
    ).toBeUndefined();
    expect(timeoutAnswerFor('req-2', now)(waiting(draft.inputRequested('req-1', { expiresAt: past })))).toBeUndefined();
    expect(timeoutAnswerFor('req-1', now)(waiting(draft.approvalRequested('req-1')))).toBeUndefined();
    expect(
      timeoutAnswerFor('req-1', now)(waiting(draft.inputRequested('req-1', { expiresAt: '2025-03-01T12:00:01.000Z' }))),
    ).toBeUndefined();
    expect(timeoutAnswerFor('req-1', now)(waiting(draft.inputRequested('req-1')))).toBeUndefined();
  });
});
