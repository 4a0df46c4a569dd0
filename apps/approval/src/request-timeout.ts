import type { Actor, RunEvent, RunEventDraft } from '@spindle/contracts';
import { requestsInLog, runPhase } from '@spindle/projections';

/** Who answers a request nobody answered in time. */
export const TIMEOUT_ACTOR: Actor = { kind: 'system', id: 'timeout', name: 'time-out' };

/**
 * Decides, from a run's log as read, whether a request has timed out: only a request of a
 * waiting run, past the deadline its own `input.requested` / `approval.requested` set, and not
 * answered yet. The answer is recorded on the request's span, so it reads as the node's own; an
 * expired approval is recorded as a rejection of exactly the call it showed, so that call never
 * runs. `undefined` means append nothing (a run that ended has its request canceled by the
 * projection instead).
 */
export function timeoutAnswerFor(requestId: string, now: Date): (events: RunEvent[]) => RunEventDraft | undefined {
  return (events) => {
    if (runPhase(events).phase !== 'waiting') return undefined;
    const request = requestsInLog(events).get(requestId);
    if (!request || request.answers.length > 0) return undefined;
    const asked = request.requested;
    const expiresAt = asked.data.expiresAt;
    if (expiresAt === undefined || Date.parse(expiresAt) > now.getTime()) return undefined;
    const envelope = {
      spanId: asked.spanId,
      ...(asked.parentSpanId !== undefined && { parentSpanId: asked.parentSpanId }),
      ...(asked.nodeId !== undefined && { nodeId: asked.nodeId }),
      path: asked.path,
      ...(asked.iteration !== undefined && { iteration: asked.iteration }),
      ...(asked.branchId !== undefined && { branchId: asked.branchId }),
    };
    const answeredBy = TIMEOUT_ACTOR;
    if (asked.type === 'input.requested') return { type: 'input.answered', ...envelope, data: { requestId, timedOut: true, answeredBy } };
    const { callId, name, argumentsHash } = asked.data.call;
    return {
      type: 'approval.resolved',
      ...envelope,
      data: { requestId, decision: 'rejected', callId, name, argumentsHash, timedOut: true, answeredBy },
    };
  };
}
